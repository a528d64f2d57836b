// tools/interop/stdio-test.mjs: mcpsim --stdio with real MCP clients: the official TypeScript
// SDK's StdioClientTransport (which spawns the server, as desktop clients do) against the
// simulator and against the bridge (--device) to a simulator's pty, and the MCP Inspector CLI
// launching mcpsim over stdio.
//
// Run by tools/interop-test, which passes MCPSIM_BIN, MCPSIM_DEVICE_LINK (the --pty-link of a
// running `mcpsim --board esp32-demo --pty-link ...`), INSPECTOR_CLI and INTEROP_TMP. Every check
// prints one line; the exit status is the number of failed checks (capped), 0 when all pass.
// tools/docker-test runs the simulator part against the image: STDIO_PARTS=sim and
// MCPSIM_STDIO_CMD='["docker","run","-i","--rm","mcpsim"]' (the command that precedes mcpsim's
// own arguments).
import { spawn } from 'node:child_process';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const env = (name) => {
    const v = process.env[name];
    if (!v) throw new Error(`${name} is not set (run tools/interop-test)`);
    return v;
};
const PARTS = (process.env.STDIO_PARTS ?? 'sim,bridge,inspector').split(',');
const STDIO_CMD = process.env.MCPSIM_STDIO_CMD ? JSON.parse(process.env.MCPSIM_STDIO_CMD) : null;
const MCPSIM = STDIO_CMD ? null : env('MCPSIM_BIN');
const DEVICE_LINK = PARTS.includes('bridge') || PARTS.includes('inspector') ? env('MCPSIM_DEVICE_LINK') : null;
const INSPECTOR = PARTS.includes('inspector') ? env('INSPECTOR_CLI') : null;
const TMP = PARTS.includes('inspector') ? env('INTEROP_TMP') : null;
const NODE = process.execPath;

let failures = 0;
function check(name, ok, detail) {
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail !== undefined ? `: ${detail}` : ''}`);
    if (!ok) failures++;
    return ok;
}

function withTimeout(promise, ms, what) {
    let timer;
    const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/* Spawns mcpsim through the SDK's stdio transport; its stderr (readiness lines, log) is kept. */
async function connect(label, args) {
    const [command, ...prefix] = STDIO_CMD ?? [MCPSIM];
    const transport = new StdioClientTransport({ command, args: [...prefix, ...args], stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d) => { stderr += d; });
    const client = new Client({ name: `mcpsim-interop-${label}`, version: '1.0.0' });
    await client.connect(transport);
    /* the child, to see how it ends (the SDK gives it 2 s after closing stdin, then SIGTERM) */
    const child = transport._process;
    const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
    return { client, transport, exited, stderr: () => stderr };
}

async function listAllTools(client) {
    const tools = [];
    let cursor, pages = 0;
    do {
        const page = await client.listTools(cursor ? { cursor } : {});
        tools.push(...page.tools);
        cursor = page.nextCursor;
        pages++;
    } while (cursor && pages < 50);
    return { tools, pages };
}

/* Closing the client closes the child's stdin: mcpsim must exit 0 by itself, at once. */
async function closeAndCheckExit(label, s) {
    const t0 = Date.now();
    await s.client.close();
    const end = await withTimeout(s.exited, 5000, `${label}: the process to end`);
    check(`${label}: closing stdin ends the process with status 0, by itself (no signal)`,
        end.code === 0 && end.signal === null && end.at - t0 < (STDIO_CMD ? 1e9 : 1900),
        `code ${end.code}, signal ${end.signal}, after ${end.at - t0} ms`);
    check(`${label}: readiness lines went to stderr`, /^stdio: stdin\/stdout$/m.test(s.stderr()) && /^ready$/m.test(s.stderr()),
        s.stderr().slice(0, 300));
}

async function simulatorChecks() {
    const label = 'stdio (simulator)';
    const s = await connect('sim', ['--board', 'esp32-demo', '--stdio']);
    const info = s.client.getServerVersion();
    check(`${label}: initialize`, !!info?.name, JSON.stringify(info));
    const { tools, pages } = await listAllTools(s.client);
    const names = tools.map((t) => t.name);
    check(`${label}: tools/list, every page (${pages} pages, ${tools.length} tools)`,
        ['gpio_write', 'gpio_read', 'adc_read', 'pwm_write'].every((n) => names.includes(n)) && new Set(names).size === names.length,
        names.join(', '));
    const write = await s.client.callTool({ name: 'gpio_write', arguments: { pin: 2, value: true } });
    check(`${label}: tools/call gpio_write`, !write.isError && write.structuredContent?.value === true, JSON.stringify(write));
    const read = await s.client.callTool({ name: 'gpio_read', arguments: { pin: 2 } });
    check(`${label}: tools/call gpio_read reads it back`, read.structuredContent?.value === true, JSON.stringify(read));
    const bad = await s.client.callTool({ name: 'adc_read', arguments: { pin: 99 } }).catch((e) => ({ thrown: String(e) }));
    check(`${label}: a bad pin is an error, and the session goes on`, bad.isError === true || /99/.test(bad.thrown ?? ''), JSON.stringify(bad));
    const res = await s.client.listResources();
    const r = await s.client.readResource({ uri: 'device://info' });
    check(`${label}: resources/list and resources/read device://info`,
        res.resources.some((x) => x.uri === 'device://info') && JSON.parse(r.contents[0].text).device === 'esp32-demo',
        JSON.stringify(r).slice(0, 200));
    const pong = await s.client.ping();
    check(`${label}: ping`, pong && typeof pong === 'object', JSON.stringify(pong));
    await closeAndCheckExit(label, s);
}

async function bridgeChecks() {
    const label = 'stdio (bridge to a pty device)';
    const s = await connect('bridge', ['--device', `serial:${DEVICE_LINK}?settle_ms=0`, '--stdio']);
    check(`${label}: initialize`, s.client.getServerVersion()?.name === 'mcpsim-bridge', JSON.stringify(s.client.getServerVersion()));
    check(`${label}: announces tools.listChanged`, s.client.getServerCapabilities()?.tools?.listChanged === true,
        JSON.stringify(s.client.getServerCapabilities()));
    const { tools, pages } = await listAllTools(s.client);
    const names = tools.map((t) => t.name);
    check(`${label}: tools/list, every page (${pages} pages, ${tools.length} tools), the device's own`,
        pages > 1 && ['gpio_write', 'gpio_read', 'adc_read', 'pwm_write', 'read_touch'].every((n) => names.includes(n)),
        names.join(', '));
    const schema = tools.find((t) => t.name === 'gpio_write')?.inputSchema;
    check(`${label}: the device's input schema is passed on`, schema?.type === 'object' && schema?.required?.includes('value'),
        JSON.stringify(schema));
    const write = await s.client.callTool({ name: 'gpio_write', arguments: { pin: 'led', value: true } });
    check(`${label}: tools/call gpio_write on the device`, !write.isError && write.structuredContent?.value === true, JSON.stringify(write));
    const read = await s.client.callTool({ name: 'gpio_read', arguments: { pin: 2 } });
    check(`${label}: tools/call gpio_read reads it back`, read.structuredContent?.value === true, JSON.stringify(read));
    const bad = await s.client.callTool({ name: 'gpio_write', arguments: { pin: 99, value: true } });
    check(`${label}: a device error is an isError result`, bad.isError === true && /-32602/.test(bad.content?.[0]?.text ?? ''),
        JSON.stringify(bad));
    const res = await s.client.listResources();
    const uri = res.resources[0]?.uri;
    const r = uri ? await s.client.readResource({ uri }) : null;
    check(`${label}: resources/list and read (the device's info)`, JSON.parse(r?.contents?.[0]?.text ?? '{}').info?.device === 'esp32-demo',
        JSON.stringify(res));
    await s.client.ping();
    check(`${label}: ping`, true);
    await closeAndCheckExit(label, s);
}

/* The Inspector CLI launching mcpsim itself, as its config or `npx ... --cli CMD ARGS` does. */
function inspector(args) {
    return withTimeout(new Promise((resolve) => {
        const child = spawn(NODE, [INSPECTOR, '--cli', ...args], {
            env: { ...process.env, HOME: TMP, MCP_CATALOG_PATH: path.join(TMP, 'inspector-catalog.json') },
            stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '', err = '';
        child.stdout.on('data', (d) => { out += d; });
        child.stderr.on('data', (d) => { err += d; });
        child.on('close', (code) => {
            let json = null;
            try { json = JSON.parse(out); } catch { /* reported below */ }
            resolve({ code, json, out, err });
        });
    }), 20000, `mcp-inspector ${args.join(' ')}`);
}

async function inspectorChecks() {
    const list = await inspector([MCPSIM, '--board', 'esp32-demo', '--stdio', '--method', 'tools/list']);
    const names = list.json?.tools?.map((t) => t.name) ?? [];
    check('inspector over stdio: tools/list', list.code === 0 && ['gpio_write', 'gpio_read', 'adc_read'].every((n) => names.includes(n)),
        `exit ${list.code}: ${names.join(', ')} ${list.err.trim().slice(0, 300)}`);
    const call = await inspector([MCPSIM, '--board', 'esp32-demo', '--stdio', '--method', 'tools/call',
        '--tool-name', 'adc_read', '--tool-arg', 'pin=34']);
    check('inspector over stdio: tools/call adc_read pin=34', call.code === 0 && typeof call.json?.structuredContent?.volts === 'number',
        `exit ${call.code}: ${call.out.slice(0, 200)} ${call.err.slice(0, 200)}`);
    const bridged = await inspector([MCPSIM, '--device', `serial:${DEVICE_LINK}?settle_ms=0`, '--stdio', '--method', 'tools/list']);
    const bnames = bridged.json?.tools?.map((t) => t.name) ?? [];
    check('inspector over stdio, bridge: tools/list (first page)', bridged.code === 0 && bnames.includes('gpio_write'),
        `exit ${bridged.code}: ${bnames.join(', ')} ${bridged.err.trim().slice(0, 300)}`);
}

const parts = [['sim', 'stdio: TypeScript SDK StdioClientTransport, simulator', simulatorChecks],
    ['bridge', 'stdio: TypeScript SDK StdioClientTransport, bridge --device', bridgeChecks],
    ['inspector', 'stdio: MCP Inspector CLI', inspectorChecks]].filter(([p]) => PARTS.includes(p));
for (const [, name, run] of parts) {
    console.log(`== ${name}`);
    try {
        await withTimeout(run(), 60000, name);
    } catch (e) {
        check(`${name}: ran to the end`, false, e?.stack ?? String(e));
    }
}
console.log(failures === 0 ? 'stdio interop: all checks passed' : `stdio interop: ${failures} check(s) failed`);
process.exit(Math.min(failures, 100));
