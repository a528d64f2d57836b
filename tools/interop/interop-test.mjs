// tools/interop/interop-test.mjs: mcpsim with real MCP clients: the official TypeScript SDK over
// Streamable HTTP and over the WebSocket envelope, and the MCP Inspector CLI over HTTP.
//
// Run by tools/interop-test, which starts `mcpsim --board esp32-demo --http 0 --ws 0 --control 0
// --clock virtual` and passes its endpoints in the environment (MCPSIM_HTTP, MCPSIM_WS,
// MCPSIM_CONTROL), the WebSocket endpoint of a second mcpsim with --conformance-fixtures
// (MCPSIM_WS_FIXTURES), the Inspector's launcher (INSPECTOR_CLI) and a scratch directory
// (INTEROP_TMP). Every check prints one line; the exit status is the number of failed checks
// (capped), 0 when all pass.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
    CreateMessageRequestSchema,
    ElicitRequestSchema,
    LoggingMessageNotificationSchema,
    ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const env = (name) => {
    const v = process.env[name];
    if (!v) throw new Error(`${name} is not set (run tools/interop-test)`);
    return v;
};
const HTTP_URL = env('MCPSIM_HTTP');
const WS_URL = env('MCPSIM_WS');
const WS_FIXTURES_URL = env('MCPSIM_WS_FIXTURES'); /* a second mcpsim, --conformance-fixtures */
const CONTROL = env('MCPSIM_CONTROL');
const INSPECTOR = env('INSPECTOR_CLI');
const TMP = env('INTEROP_TMP');
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

// ---------------------------------------------------------------- the control channel

/* One sim.* request on the control channel (a TCP line each way). */
let controlId = 0;
function control(method, params = {}) {
    const [host, port] = [CONTROL.slice(0, CONTROL.lastIndexOf(':')), Number(CONTROL.slice(CONTROL.lastIndexOf(':') + 1))];
    return withTimeout(new Promise((resolve, reject) => {
        const sock = net.connect({ host: host.replace(/^\[|\]$/g, ''), port });
        let buf = '';
        sock.on('connect', () => sock.write(JSON.stringify({ jsonrpc: '2.0', id: ++controlId, method, params }) + '\n'));
        sock.on('data', (d) => {
            buf += d;
            const nl = buf.indexOf('\n');
            if (nl < 0) return;
            sock.end();
            const msg = JSON.parse(buf.slice(0, nl));
            if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
            else resolve(msg.result);
        });
        sock.on('error', reject);
    }), 5000, `control ${method}`);
}

// ---------------------------------------------------------------- shared client checks

/* Every page of tools/list. */
async function listAllTools(client) {
    const tools = [];
    let cursor;
    do {
        const page = await client.listTools(cursor ? { cursor } : {});
        tools.push(...page.tools);
        cursor = page.nextCursor;
    } while (cursor);
    return tools;
}

async function toolChecks(client, via) {
    const tools = await listAllTools(client);
    const names = tools.map((t) => t.name);
    for (const want of ['gpio_write', 'gpio_read', 'adc_read'])
        check(`${via}: tools/list has ${want}`, names.includes(want), names.join(', '));
    const gpioRead = tools.find((t) => t.name === 'gpio_read');
    check(`${via}: gpio_read is annotated read-only`, gpioRead?.annotations?.readOnlyHint === true,
        JSON.stringify(gpioRead?.annotations));
    check(`${via}: no conformance fixture without the flag`, !names.some((n) => n.startsWith('test_')));

    const on = await client.callTool({ name: 'gpio_write', arguments: { pin: 'led', value: true } });
    check(`${via}: gpio_write led true`, !on.isError && on.structuredContent?.value === true,
        JSON.stringify(on));
    const read = await client.callTool({ name: 'gpio_read', arguments: { pin: 2 } });
    check(`${via}: gpio_read 2 reads what gpio_write drove`,
        read.structuredContent?.value === true && read.content?.[0]?.type === 'text', JSON.stringify(read));
    const off = await client.callTool({ name: 'gpio_write', arguments: { pin: 2, value: false } });
    check(`${via}: gpio_write 2 false`, off.structuredContent?.value === false, JSON.stringify(off));

    await control('sim.set_analog', { pin: 34, volts: 1.25 });
    const adc = await client.callTool({ name: 'adc_read', arguments: { pin: 'sensor' } });
    const volts = adc.structuredContent?.volts;
    check(`${via}: adc_read sensor reads the 1.25 V the control channel set`,
        typeof volts === 'number' && Math.abs(volts - 1.25) < 0.01, JSON.stringify(adc));
    check(`${via}: adc_read's text block holds the same JSON`,
        JSON.stringify(JSON.parse(adc.content?.[0]?.text ?? 'null')) === JSON.stringify(adc.structuredContent));

    const bad = await client.callTool({ name: 'gpio_write', arguments: { pin: 'sensor', value: true } })
        .then((r) => ({ result: r }), (e) => ({ error: e }));
    check(`${via}: gpio_write on an ADC pin is an invalid-params error (-32602)`,
        bad.error?.code === -32602, JSON.stringify(bad.result ?? bad.error?.message));
}

/* Subscribes to pin://sensor, changes the sensor and moves the virtual clock past a sampling
   tick: notifications/resources/updated must arrive, and the resource then shows the value. */
async function subscriptionChecks(client, via, volts) {
    let notify;
    const updated = new Promise((resolve) => { notify = resolve; });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        if (n.params.uri === 'pin://sensor') notify(n.params.uri);
    });
    await client.subscribeResource({ uri: 'pin://sensor' });
    await control('sim.set_analog', { pin: 34, volts });
    await control('sim.advance', { ms: 600 }); /* the sensor is sampled every 500 ms */
    const uri = await withTimeout(updated, 5000, `${via} notifications/resources/updated`)
        .catch((e) => e.message);
    check(`${via}: notifications/resources/updated for pin://sensor after the clock moved`,
        uri === 'pin://sensor', uri);
    const res = await client.readResource({ uri: 'pin://sensor' });
    const shown = JSON.parse(res.contents?.[0]?.text ?? '{}');
    check(`${via}: resources/read pin://sensor shows the new ${volts} V`,
        Math.abs((shown.volts ?? -1) - volts) < 0.01 && shown.summary?.count > 0, res.contents?.[0]?.text);
    await client.unsubscribeResource({ uri: 'pin://sensor' });
}

// ---------------------------------------------------------------- Streamable HTTP

async function httpChecks() {
    const client = new Client({ name: 'mcpsim-interop', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(HTTP_URL));
    await client.connect(transport);
    check('http: initialize (server esp32-demo)', client.getServerVersion()?.name === 'esp32-demo',
        JSON.stringify(client.getServerVersion()));
    check('http: Mcp-Session-Id issued', typeof transport.sessionId === 'string' && transport.sessionId.length === 32,
        transport.sessionId);
    check('http: protocol version negotiated', transport.protocolVersion === '2025-11-25' || transport.protocolVersion === '2025-06-18',
        transport.protocolVersion);
    await toolChecks(client, 'http');

    // A hardware failure is a result with isError, and the firmware's log message about it
    // reaches the session (before the result, on the POST's own event stream).
    const logs = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
    await client.setLoggingLevel('warning');
    const fault = await control('sim.fault.inject', { kind: 'adc_fail', pin: 34 });
    const failed = await client.callTool({ name: 'adc_read', arguments: { pin: 34 } });
    await control('sim.fault.clear', { id: fault.id });
    check('http: an ADC failure is a tool result with isError', failed.isError === true && /adc|ADC/.test(failed.content?.[0]?.text ?? ''),
        JSON.stringify(failed));
    check('http: ... and an error log message (notifications/message) before the result',
        logs.some((l) => l.level === 'error' && /adc_read failed/.test(String(l.data))), JSON.stringify(logs));

    await subscriptionChecks(client, 'http', 2.5);
    await transport.terminateSession(); /* DELETE /mcp */
    check('http: DELETE ended the session', transport.sessionId === undefined, transport.sessionId);
    await client.close();
}

// ---------------------------------------------------------------- WebSocket with the envelope

/*
 * A client Transport for the 003 device family's envelope: every MCP message travels as
 * {"session_id", "type": "mcp", "payload": <message>}. The SDK has no such transport; this one
 * wraps what the client sends and unwraps what arrives, and records anything that was not an
 * envelope of its session.
 */
class EnvelopeTransport {
    constructor(url, sessionId) {
        this.url = url;
        /* not `sessionId`: the SDK's Client takes a transport with one as reconnecting and
           skips initialize */
        this.envelopeSession = sessionId;
        this.received = 0;
        this.strays = [];
    }

    async start() {
        this.ws = new WebSocket(this.url, 'mcp');
        this.ws.onmessage = (ev) => {
            let env;
            try { env = JSON.parse(ev.data); } catch { this.strays.push(String(ev.data)); return; }
            if (env?.type !== 'mcp' || env.session_id !== this.envelopeSession || typeof env.payload !== 'object') {
                this.strays.push(ev.data);
                return;
            }
            this.received++;
            this.onmessage?.(env.payload);
        };
        this.ws.onclose = () => this.onclose?.();
        this.ws.onerror = (e) => this.onerror?.(new Error(e.message ?? 'websocket error'));
        await withTimeout(new Promise((resolve, reject) => {
            this.ws.onopen = resolve;
            this.ws.addEventListener('error', () => reject(new Error(`cannot connect to ${this.url}`)), { once: true });
        }), 5000, 'the WebSocket to open');
    }

    async send(message) {
        this.ws.send(JSON.stringify({ session_id: this.envelopeSession, type: 'mcp', payload: message }));
    }

    async close() {
        this.ws?.close();
    }
}

async function wsChecks() {
    const transport = new EnvelopeTransport(WS_URL, 'interop-session-7');
    const client = new Client({ name: 'mcpsim-interop-ws', version: '1.0.0' });
    await client.connect(transport);
    check('ws envelope: initialize (server esp32-demo)', client.getServerVersion()?.name === 'esp32-demo',
        JSON.stringify(client.getServerVersion()));
    await toolChecks(client, 'ws envelope');
    await subscriptionChecks(client, 'ws envelope', 0.75);
    check('ws envelope: every message came back wrapped with our session_id',
        transport.strays.length === 0 && transport.received > 10,
        `${transport.received} wrapped, strays: ${transport.strays.slice(0, 2).join(' | ')}`);
    await client.close();
}

/* Requests from the device to the client (sampling, elicitation) over the envelope: the
   conformance fixtures ask, the SDK client's handlers answer, the tool's result follows. */
async function wsAskChecks() {
    const transport = new EnvelopeTransport(WS_FIXTURES_URL, 'interop-ask');
    const client = new Client({ name: 'mcpsim-interop-ask', version: '1.0.0' },
        { capabilities: { sampling: {}, elicitation: {} } });
    const asked = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
        asked.push(req.params.messages?.[0]?.content?.text);
        return { role: 'assistant', content: { type: 'text', text: 'Blink the LED twice.' }, model: 'interop' };
    });
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked.push(req.params.message);
        return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
    });
    await client.connect(transport);
    const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'What should the LED do?' } });
    check('ws envelope: test_sampling asked sampling/createMessage with the prompt',
        asked[0] === 'What should the LED do?', JSON.stringify(asked));
    check('ws envelope: ... and answered with the client\'s completion',
        sampled.content?.[0]?.text === 'LLM response: Blink the LED twice.', JSON.stringify(sampled));
    const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    check('ws envelope: test_elicitation asked elicitation/create and answered with the user\'s reply',
        asked[1] === 'Who are you?' &&
        elicited.content?.[0]?.text === 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}',
        JSON.stringify(elicited));
    check('ws envelope: every message of the asking session came wrapped', transport.strays.length === 0,
        transport.strays.slice(0, 2).join(' | '));
    await client.close();
}

// ---------------------------------------------------------------- the MCP Inspector CLI

/* Runs the Inspector in CLI mode against the HTTP endpoint; its JSON output, or a failure. */
function inspector(args) {
    return withTimeout(new Promise((resolve) => {
        const child = spawn(NODE, [INSPECTOR, '--cli', HTTP_URL, '--transport', 'http', ...args], {
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
    const list = await inspector(['--method', 'tools/list', '--strict']);
    const names = list.json?.tools?.map((t) => t.name) ?? [];
    check('inspector: tools/list (exit 0, --strict finds no schema problem)', list.code === 0,
        `exit ${list.code}: ${list.err.trim().slice(0, 300)}`);
    check('inspector: tools/list names gpio_write, gpio_read, adc_read',
        ['gpio_write', 'gpio_read', 'adc_read'].every((n) => names.includes(n)), names.join(', '));
    const write = await inspector(['--method', 'tools/call', '--tool-name', 'gpio_write', '--tool-arg', 'pin=2', 'value=true']);
    check('inspector: tools/call gpio_write pin=2 value=true', write.code === 0 && write.json?.structuredContent?.value === true,
        `exit ${write.code}: ${write.out.slice(0, 200)} ${write.err.slice(0, 200)}`);
    const read = await inspector(['--method', 'tools/call', '--tool-name', 'gpio_read', '--tool-arg', 'pin=2']);
    check('inspector: tools/call gpio_read pin=2 reads true', read.code === 0 && read.json?.structuredContent?.value === true,
        `exit ${read.code}: ${read.out.slice(0, 200)} ${read.err.slice(0, 200)}`);
    const adc = await inspector(['--method', 'tools/call', '--tool-name', 'adc_read', '--tool-arg', 'pin=34']);
    check('inspector: tools/call adc_read pin=34', adc.code === 0 && typeof adc.json?.structuredContent?.volts === 'number',
        `exit ${adc.code}: ${adc.out.slice(0, 200)} ${adc.err.slice(0, 200)}`);
    const res = await inspector(['--method', 'resources/read', '--uri', 'device://info']);
    check('inspector: resources/read device://info', res.code === 0 && JSON.parse(res.json?.contents?.[0]?.text ?? '{}').device === 'esp32-demo',
        `exit ${res.code}: ${res.out.slice(0, 200)} ${res.err.slice(0, 200)}`);
}

// ---------------------------------------------------------------- main

const parts = [['Streamable HTTP (TypeScript SDK)', httpChecks], ['WebSocket envelope (TypeScript SDK)', wsChecks],
    ['Requests to the client over the WebSocket envelope (TypeScript SDK, fixtures)', wsAskChecks],
    ['MCP Inspector CLI over HTTP', inspectorChecks]];
for (const [name, run] of parts) {
    console.log(`== ${name}`);
    try {
        await withTimeout(run(), 30000, name);
    } catch (e) {
        check(`${name}: ran to the end`, false, e?.stack ?? String(e));
    }
}
console.log(failures === 0 ? 'interop: all checks passed' : `interop: ${failures} check(s) failed`);
process.exit(Math.min(failures, 100));
