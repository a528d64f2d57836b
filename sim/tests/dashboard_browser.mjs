#!/usr/bin/env node
// dashboard_browser.mjs: the dashboard in headless Chromium, driven over the DevTools protocol
// (--remote-debugging-pipe; Node built-ins only).
//
//   node dashboard_browser.mjs test MCPSIM OUTDIR
//       uno board: after gpio_write led true over TCP, [data-pin="led"] has data-value="true"
//       within 1 s, and the message log a row [data-transport="tcp"][data-method="gpio_write"];
//       a mouse click on [data-pin="button"]'s button is seen by gpio_read; the page
//       made no request outside its own origin; a screenshot goes to OUTDIR/dashboard-test.png.
//       Exit 0 (pass), 1 (fail), 77 (no chromium: skipped).
//   node dashboard_browser.mjs shot MCPSIM BOARD OUT.png
//       a screenshot of BOARD's dashboard after a few scripted changes (docs/dashboard-*.png).
// $CHROMIUM names the browser (default: chromium, chromium-browser, google-chrome on $PATH).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const DEADLINE_MS = Number(process.env.DASHBOARD_DEADLINE_MS || 1000); // the 1 s
const STEP_TIMEOUT_MS = 20000; // any single wait of the harness itself (sanitizer builds are slow)

function fail(msg) {
  console.error("FAIL: " + msg);
  process.exitCode = 1;
  throw new Error(msg);
}

function findChromium() {
  const names = process.env.CHROMIUM ? [process.env.CHROMIUM]
    : ["chromium", "chromium-browser", "google-chrome"];
  for (const n of names) {
    const r = spawnSync("sh", ["-c", `command -v "${n}"`], { encoding: "utf8" });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return null;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/* mcpsim with its readiness lines parsed ({tcp, dashboard, proc}). */
function startSim(bin, args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(bin, args, { stdio: ["ignore", "pipe", "inherit"] });
    const lines = {};
    let buf = "";
    const timer = setTimeout(() => reject(new Error("mcpsim: no 'ready' in time")), STEP_TIMEOUT_MS);
    proc.stdout.on("data", (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line === "ready") { clearTimeout(timer); resolve({ ...lines, proc }); }
        const m = /^([a-z-]+): (.*)$/.exec(line);
        if (m) lines[m[1]] = m[2];
      }
    });
    proc.on("exit", (code) => reject(new Error("mcpsim exited with " + code)));
  });
}

/* A newline-delimited JSON-RPC client of the device's TCP transport. */
async function tcpClient(addr) {
  const [host, port] = [addr.slice(0, addr.lastIndexOf(":")), Number(addr.slice(addr.lastIndexOf(":") + 1))];
  const sock = net.connect(port, host);
  await new Promise((r, j) => { sock.once("connect", r); sock.once("error", j); });
  let buf = "", waiting = [], id = 0;
  sock.on("data", (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const msg = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      const w = waiting.findIndex((x) => x.id === msg.id);
      if (w >= 0) waiting.splice(w, 1)[0].resolve(msg);
    }
  });
  return {
    call(method, params) {
      const req = { jsonrpc: "2.0", id: ++id, method, params };
      return new Promise((resolve) => { waiting.push({ id: req.id, resolve }); sock.write(JSON.stringify(req) + "\n"); });
    },
    close() { sock.destroy(); },
  };
}

/* Chromium with the DevTools protocol on fds 3 (to it) and 4 (from it), NUL-framed JSON. */
function startChromium(exe, profileDir) {
  const args = ["--headless=new", "--remote-debugging-pipe", "--no-first-run",
    "--no-default-browser-check", "--disable-gpu", "--disable-extensions",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--user-data-dir=" + profileDir, "--window-size=1280,900", "about:blank"];
  if (process.getuid && process.getuid() === 0) args.unshift("--no-sandbox"); // root: no sandbox
  const proc = spawn(exe, args, { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
  let stderr = "";
  proc.stdio[2].on("data", (d) => { stderr += d; });
  const toChrome = proc.stdio[3], fromChrome = proc.stdio[4];
  let id = 0, pending = new Map(), buf = "", listeners = [];
  fromChrome.on("data", (d) => {
    buf += d;
    let end;
    while ((end = buf.indexOf("\0")) >= 0) {
      const msg = JSON.parse(buf.slice(0, end));
      buf = buf.slice(end + 1);
      if (msg.id && pending.has(msg.id)) {
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        msg.error ? p.reject(new Error(p.method + ": " + JSON.stringify(msg.error))) : p.resolve(msg.result);
      } else if (msg.method) {
        for (const l of listeners) l(msg);
      }
    }
  });
  const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
    const msg = { id: ++id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    pending.set(msg.id, { resolve, reject, method });
    toChrome.write(JSON.stringify(msg) + "\0");
    setTimeout(() => { if (pending.delete(msg.id)) reject(new Error(method + ": no answer")); }, STEP_TIMEOUT_MS);
  });
  return { proc, send, on: (l) => listeners.push(l), stderr: () => stderr };
}

/* A page of chromium at url; returns helpers bound to its session. */
async function openPage(cr, url, requests) {
  const { targetId } = await cr.send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await cr.send("Target.attachToTarget", { targetId, flatten: true });
  const s = (m, p) => cr.send(m, p, sessionId);
  cr.on((msg) => {
    if (msg.sessionId !== sessionId) return;
    if (msg.method === "Network.requestWillBeSent") requests.push(msg.params.request.url);
    if (msg.method === "Runtime.exceptionThrown")
      console.error("page exception: " + JSON.stringify(msg.params.exceptionDetails).slice(0, 600));
  });
  await s("Network.enable");
  await s("Page.enable");
  await s("Runtime.enable");
  await s("Emulation.setDeviceMetricsOverride", { width: 1280, height: 900, deviceScaleFactor: 1, mobile: false });
  await s("Page.navigate", { url });
  const evaluate = async (expr) => {
    const r = await s("Runtime.evaluate", { expression: expr, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error("evaluate: " + JSON.stringify(r.exceptionDetails));
    return r.result.value;
  };
  const waitFor = async (expr, ms, what) => {
    const t0 = Date.now();
    for (;;) {
      const v = await evaluate(expr);
      if (v) return Date.now() - t0;
      if (Date.now() - t0 > ms) fail(`${what}: not within ${ms} ms`);
      await sleep(10);
    }
  };
  const click = async (selector) => {
    const r = await evaluate(`(() => { const e = document.querySelector(${JSON.stringify(selector)});
      if (!e) return null; e.scrollIntoView({block: "center"}); const b = e.getBoundingClientRect();
      return {x: b.x + b.width / 2, y: b.y + b.height / 2}; })()`);
    if (!r) fail("no element " + selector);
    for (const type of ["mouseMoved", "mousePressed", "mouseReleased"])
      await s("Input.dispatchMouseEvent", { type, x: r.x, y: r.y, button: "left", clickCount: 1 });
  };
  const screenshot = async (file) => {
    await evaluate("window.scrollTo(0, 0)");
    const m = await s("Page.getLayoutMetrics");
    const size = m.cssContentSize || m.contentSize;
    const shot = await s("Page.captureScreenshot", { format: "png", captureBeyondViewport: true,
      clip: { x: 0, y: 0, width: 1280, height: Math.min(Math.ceil(size.height), 4000), scale: 1 } });
    writeFileSync(file, Buffer.from(shot.data, "base64"));
  };
  return { evaluate, waitFor, click, screenshot };
}

const pinValue = (name) => `document.querySelector('[data-pin="${name}"]')?.dataset.value`;

async function runTest(bin, outdir, cr) {
  const sim = await startSim(bin, ["--board", "uno", "--tcp", "0", "--dashboard", "0", "--clock", "virtual", "--log-level", "warn"]);
  const tcp = await tcpClient(sim.tcp);
  const requests = [];
  try {
    const page = await openPage(cr, sim.dashboard, requests);
    await page.waitFor(`${pinValue("led")} === "false"`, STEP_TIMEOUT_MS, "the page shows led false");
    const t0 = Date.now();
    const w = await tcp.call("gpio_write", { pin: "led", value: true });
    if (!w.result) fail("gpio_write: " + JSON.stringify(w));
    await page.waitFor(`${pinValue("led")} === "true"`, DEADLINE_MS + 500, "led true after gpio_write");
    const latency = Date.now() - t0;
    console.log(`PASS gpio_write led true over TCP -> [data-pin="led"][data-value="true"] in ${latency} ms`);
    const row = `document.querySelector('#msgbody tr[data-transport="tcp"][data-method="gpio_write"]')`;
    await page.waitFor(`${row} !== null`, DEADLINE_MS, "the message log shows the gpio_write over TCP");
    console.log("PASS the message log has a row with data-transport=\"tcp\" data-method=\"gpio_write\"");
    if (latency > DEADLINE_MS) fail(`the DOM followed in ${latency} ms, over ${DEADLINE_MS} ms`);

    const before = (await tcp.call("gpio_read", { pin: "button" })).result.value;
    await page.click('[data-pin="button"] button');
    const t1 = Date.now();
    let after = before;
    while (after === before && Date.now() - t1 < DEADLINE_MS) {
      after = (await tcp.call("gpio_read", { pin: "button" })).result.value;
      if (after === before) await sleep(10);
    }
    if (after === before) fail(`gpio_read button still ${before} ${DEADLINE_MS} ms after the click`);
    console.log(`PASS click on [data-pin="button"] button -> gpio_read button ${before} -> ${after} in ${Date.now() - t1} ms`);
    await page.waitFor(`${pinValue("button")} === "${after}"`, DEADLINE_MS, "the page shows the new button level");
    await page.waitFor(`document.querySelectorAll("#logbody tr").length === 1`, DEADLINE_MS, "the click is in the page's log");

    /* the firmware's own samples on the ADC plot: the uno samples A0 every 1000 ms */
    const adv = await fetch(new URL("api/control", sim.dashboard), {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "sim.advance", params: { ms: 3000 } }) });
    if (!adv.ok) fail(`sim.advance from the test: HTTP ${adv.status}`);
    await page.waitFor(`document.querySelector('[data-pin="sensor"]').dataset.samples === "3"`, DEADLINE_MS,
      "the sensor's plot shows the 3 samples the firmware took");
    console.log('PASS the firmware\'s samples are on the plot: [data-pin="sensor"][data-samples="3"]');

    const origin = new URL(sim.dashboard).origin;
    const foreign = requests.filter((u) => !u.startsWith(origin + "/") && !u.startsWith("about:") && !u.startsWith("data:"));
    if (foreign.length) fail("requests outside the page's origin: " + foreign.join(", "));
    console.log(`PASS the page made ${requests.length} requests, all to ${origin}`);
    const file = path.join(outdir, "dashboard-test.png");
    await page.screenshot(file);
    console.log("screenshot: " + file);
  } finally {
    tcp.close();
    sim.proc.kill("SIGTERM");
  }
}

/* A board in a state worth showing: outputs set, an input, a temperature, some time. */
async function runShot(bin, board, file, cr) {
  const sim = await startSim(bin, ["--board", board, "--tcp", "0", "--dashboard", "0", "--clock", "realtime", "--log-level", "warn"]);
  const tcp = await tcpClient(sim.tcp);
  try {
    const page = await openPage(cr, sim.dashboard, []);
    await page.waitFor(`document.querySelectorAll("[data-pin]").length > 0`, STEP_TIMEOUT_MS, "pins shown");
    // through the page's own control() (logged in its table, as a click would be)
    const ctl = (method, params) => page.evaluate(`control(${JSON.stringify(method)}, ${JSON.stringify(params)}).then(() => true)`);
    if (board === "esp32-demo") {
      await tcp.call("gpio_write", { pin: "led", value: true });
      await tcp.call("pwm_write", { pin: "led_pwm", duty: 160 });
      await ctl("sim.set_waveform", { pin: 34, waveform: { type: "sine", offset: 1.65, amplitude: 1.2, period_ms: 4000 } });
    } else {
      await tcp.call("gpio_write", { pin: "relay", value: true });
      await tcp.call("pwm_write", { pin: "fan", duty: 96 });
      await ctl("sim.set_waveform", { pin: 36, waveform: { type: "triangle", low: 0.6, high: 2.7, period_ms: 5000 } });
      await ctl("sim.i2c.set", { address: 72, temperature_c: 27.5 });
      const text = [..."mcpsim greenhouse log"].map((ch) => ch.charCodeAt(0));
      const w = await tcp.call("eeprom_write", { offset: 0, bytes: text });
      if (!w.result) fail("eeprom_write: " + JSON.stringify(w));
    }
    await sleep(6000); // a few seconds of waveform in the plots
    await page.screenshot(file);
    console.log("screenshot: " + file);
  } finally {
    tcp.close();
    sim.proc.kill("SIGTERM");
  }
}

async function main() {
  const [mode, bin, a, b] = process.argv.slice(2);
  const exe = findChromium();
  if (!exe) {
    console.log("SKIP: no chromium on PATH (tools/bootstrap installs Debian's chromium)");
    process.exit(77);
  }
  const profile = mkdtempSync(path.join(os.tmpdir(), "mcpsim-chromium-"));
  const cr = startChromium(exe, profile);
  const watchdog = setTimeout(() => { console.error("FAIL: timed out"); process.exit(1); }, 120000);
  try {
    if (mode === "test") await runTest(bin, a, cr);
    else if (mode === "shot") await runShot(bin, a, b, cr);
    else fail("usage: dashboard_browser.mjs test MCPSIM OUTDIR | shot MCPSIM BOARD OUT.png");
  } catch (e) {
    if (!process.exitCode) console.error("FAIL: " + e.message + "\n" + cr.stderr().slice(-2000));
    process.exitCode = 1;
  } finally {
    clearTimeout(watchdog);
    const exited = new Promise((r) => { if (cr.proc.exitCode !== null) r(); else cr.proc.once("exit", r); });
    await Promise.race([cr.send("Browser.close").catch(() => {}), sleep(3000)]);
    await Promise.race([exited, sleep(5000)]);
    if (cr.proc.exitCode === null) cr.proc.kill("SIGKILL");
    await Promise.race([exited, sleep(2000)]);
    try { rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }); } catch { /* a temp dir */ }
    process.exit(process.exitCode || 0);
  }
}

main();
