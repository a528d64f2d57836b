// tools/interop/mcpd-test.mjs: the mcpd-esp32 board (seed 002) with the official TypeScript SDK
// over Streamable HTTP, negotiating MCP 2025-11-25: mcpd's tool vocabulary, GPIO round trip,
// output schemas (structuredContent validated by the SDK and by Ajv against the published
// outputSchema), the pin devices on the control channel, and 2025-11-25 tasks (firmware_update:
// params.task, notifications/progress while it works, tasks/get to completed over virtual time,
// tasks/result waiting for the end, tasks/list, tasks/cancel, the taskSupport errors).
//
// Run by tools/interop-test, which starts `mcpsim --board mcpd-esp32 --http 0 --control 0
// --clock virtual` and passes MCPSIM_HTTP and MCPSIM_CONTROL. Every check prints one line; the
// exit status is the number of failed checks (capped), 0 when all pass.
import net from 'node:net';

import Ajv from 'ajv';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
    CallToolResultSchema,
    CancelTaskResultSchema,
    CreateTaskResultSchema,
    GetTaskResultSchema,
    ListTasksResultSchema,
} from '@modelcontextprotocol/sdk/types.js';

const env = (name) => {
    const v = process.env[name];
    if (!v) throw new Error(`${name} is not set (run tools/interop-test)`);
    return v;
};
const HTTP_URL = env('MCPSIM_HTTP');
const CONTROL = env('MCPSIM_CONTROL');

let failures = 0;
function check(name, ok, detail) {
    console.log(`${ok ? 'ok  ' : 'FAIL'} mcpd: ${name}${!ok && detail !== undefined ? `: ${detail}` : ''}`);
    if (!ok) failures++;
    return ok;
}

/* One sim.* request on the control channel (a TCP line each way). */
let controlId = 0;
function control(method, params = {}) {
    const i = CONTROL.lastIndexOf(':');
    return new Promise((resolve, reject) => {
        const sock = net.connect({ host: CONTROL.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(CONTROL.slice(i + 1)) });
        let buf = '';
        const timer = setTimeout(() => { sock.destroy(); reject(new Error(`control ${method} timed out`)); }, 5000);
        sock.on('connect', () => sock.write(JSON.stringify({ jsonrpc: '2.0', id: ++controlId, method, params }) + '\n'));
        sock.on('data', (d) => {
            buf += d;
            const nl = buf.indexOf('\n');
            if (nl < 0) return;
            clearTimeout(timer);
            sock.end();
            const msg = JSON.parse(buf.slice(0, nl));
            if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
            else resolve(msg.result);
        });
        sock.on('error', (e) => { clearTimeout(timer); reject(e); });
    });
}

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

/* The JSON-RPC error code of a request that must fail, or 'no error'. */
async function errorCode(promise) {
    try {
        await promise;
        return 'no error';
    } catch (e) {
        return e.code;
    }
}

const VOCABULARY = ['pin_mode', 'digital_read', 'digital_write', 'analog_read', 'pwm_write', 'pwm_stop',
    'servo_write', 'servo_detach', 'neopixel_set', 'neopixel_fill', 'neopixel_clear',
    'neopixel_brightness', 'dht_read', 'i2c_scan', 'i2c_read', 'i2c_write', 'system_info',
    'firmware_update'];

async function main() {
    const client = new Client({ name: 'mcpd-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(HTTP_URL));
    await client.connect(transport);
    check('negotiated 2025-11-25', transport.protocolVersion === '2025-11-25', transport.protocolVersion);
    const caps = client.getServerCapabilities();
    check('initialize declares tasks (list, cancel, tools/call)',
        caps?.tasks?.list !== undefined && caps?.tasks?.cancel !== undefined &&
        caps?.tasks?.requests?.tools?.call !== undefined, JSON.stringify(caps?.tasks));

    // ---------------------------------------------------------------- the vocabulary
    const tools = await listAllTools(client);
    const names = tools.map((t) => t.name);
    check('tools/list is exactly mcpd\'s vocabulary', JSON.stringify([...names].sort()) ===
        JSON.stringify([...VOCABULARY].sort()), names.join(', '));
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    check('pin_mode takes mcpd\'s four modes', JSON.stringify(byName.pin_mode?.inputSchema?.properties?.mode?.enum) ===
        JSON.stringify(['INPUT', 'INPUT_PULLUP', 'INPUT_PULLDOWN', 'OUTPUT']));
    const pwm = byName.pwm_write?.inputSchema?.properties ?? {};
    check('pwm_write defaults: frequency 5000, resolution 8, channel 0',
        pwm.frequency?.default === 5000 && pwm.resolution?.default === 8 && pwm.channel?.default === 0,
        JSON.stringify(pwm));
    check('firmware_update lists execution.taskSupport required',
        byName.firmware_update?.execution?.taskSupport === 'required', JSON.stringify(byName.firmware_update));

    // ---------------------------------------------------------------- GPIO round trip
    const mode = await client.callTool({ name: 'pin_mode', arguments: { pin: 2, mode: 'OUTPUT' } });
    check('pin_mode 2 OUTPUT', !mode.isError && mode.structuredContent?.mode === 'OUTPUT', JSON.stringify(mode));
    const wr = await client.callTool({ name: 'digital_write', arguments: { pin: 2, value: 1 } });
    check('digital_write 2 1', !wr.isError && wr.structuredContent?.value === 1, JSON.stringify(wr));
    const rd = await client.callTool({ name: 'digital_read', arguments: { pin: 2 } });
    check('digital_read 2 -> 1', !rd.isError && rd.structuredContent?.value === 1, JSON.stringify(rd));
    const pin = await control('sim.get_pin', { pin: 2 });
    check('the simulated pin 2 is an output driven high', pin.mode === 'output' && pin.level === true,
        JSON.stringify(pin));
    check('a bad mode is -32602', (await errorCode(client.callTool({ name: 'pin_mode',
        arguments: { pin: 2, mode: 'OUTPUT_OPEN_DRAIN' } }))) === -32602);

    // ---------------------------------------------------------------- output schemas
    const ajv = new Ajv({ strict: false });
    const calls = [
        ['digital_read', { pin: 2 }], ['analog_read', { pin: 34 }], ['dht_read', {}],
        ['dht_read', { fahrenheit: true }], ['servo_write', { pin: 13, angle: 90 }], ['system_info', {}],
    ];
    for (const [name, args] of calls) {
        const schema = byName[name]?.outputSchema;
        if (!check(`${name} publishes an outputSchema`, schema?.type === 'object', JSON.stringify(schema))) continue;
        // the SDK validates structuredContent against the listed outputSchema itself (it throws)
        const r = await client.callTool({ name, arguments: args });
        const validate = ajv.compile(schema);
        check(`${name} ${JSON.stringify(args)}: structuredContent validates`,
            !r.isError && validate(r.structuredContent), JSON.stringify(validate.errors ?? r));
        check(`${name}: the text block is the same JSON`,
            JSON.stringify(JSON.parse(r.content?.[0]?.text ?? 'null')) === JSON.stringify(r.structuredContent));
    }

    // ---------------------------------------------------------------- pin devices
    const servo = await control('sim.pin_device.get', { name: 'servo' });
    check('servo at 90 degrees (1472 us pulse)', Math.abs(servo.angle - 90) < 0.5 && servo.attached,
        JSON.stringify(servo));
    await client.callTool({ name: 'servo_detach', arguments: { pin: 13 } });
    check('servo_detach stops the pulses', (await control('sim.pin_device.get', { name: 'servo' })).attached === false);
    await client.callTool({ name: 'neopixel_fill', arguments: { r: 0, g: 0, b: 40 } });
    await client.callTool({ name: 'neopixel_set', arguments: { index: 15, r: 255, g: 128, b: 0 } });
    let strip = await control('sim.pin_device.get', { name: 'strip' });
    check('neopixel_fill then neopixel_set 15', strip.pixels[0].join() === '0,0,40' &&
        strip.pixels[15].join() === '255,128,0', JSON.stringify(strip.pixels));
    await client.callTool({ name: 'neopixel_brightness', arguments: { brightness: 127 } });
    strip = await control('sim.pin_device.get', { name: 'strip' });
    check('neopixel_brightness 127 halves what is shown', strip.pixels[15].join() === '127,64,0',
        JSON.stringify(strip.pixels[15]));
    check('neopixel_set past the 16 pixels is -32602', (await errorCode(client.callTool({ name: 'neopixel_set',
        arguments: { index: 16, r: 1, g: 1, b: 1 } }))) === -32602);
    await control('sim.pin_device.set', { name: 'dht22', temperature: -3.5, humidity: 81.2 });
    const dht = await client.callTool({ name: 'dht_read', arguments: {} });
    check('dht_read follows the control channel', dht.structuredContent?.temperature === -3.5 &&
        dht.structuredContent?.humidity === 81.2, JSON.stringify(dht.structuredContent));
    await control('sim.pin_device.set', { name: 'dht22', fail: true });
    const silent = await client.callTool({ name: 'dht_read', arguments: {} });
    check('a DHT22 that does not answer is isError', silent.isError === true, JSON.stringify(silent));
    await control('sim.pin_device.set', { name: 'dht22', fail: false });
    const sys = await client.callTool({ name: 'system_info', arguments: {} });
    check('system_info reports the board\'s ESP32', sys.structuredContent?.chipModel === 'ESP32-D0WD-V3' &&
        sys.structuredContent?.cpuFreqMHz === 240 && sys.structuredContent?.freeHeap > 0 &&
        sys.structuredContent.freeHeap < sys.structuredContent.heapSize, JSON.stringify(sys.structuredContent));
    const scan = await client.callTool({ name: 'i2c_scan', arguments: {} });
    check('i2c_scan finds 0x48', JSON.stringify(scan.structuredContent?.devices) === '[72]', JSON.stringify(scan));

    // ---------------------------------------------------------------- tasks (2025-11-25)
    const url = 'https://ota.example.com/fw-1.2.bin';
    check('firmware_update without params.task is -32601', (await errorCode(client.request({ method: 'tools/call',
        params: { name: 'firmware_update', arguments: { url } } }, CallToolResultSchema))) === -32601);
    check('digital_read with params.task (forbidden) is -32601', (await errorCode(client.request({
        method: 'tools/call', params: { name: 'digital_read', arguments: { pin: 2 }, task: {} } },
    CreateTaskResultSchema))) === -32601);
    // onprogress gives the call a progressToken: the SDK keeps its handler while the task works
    const progress = [];
    const created = await client.request({ method: 'tools/call',
        params: { name: 'firmware_update', arguments: { url }, task: { ttl: 60000 } } }, CreateTaskResultSchema,
    { onprogress: (p) => progress.push(p) });
    const id = created.task?.taskId;
    check('task-augmented call answers a working task', typeof id === 'string' && created.task.status === 'working' &&
        created.task.ttl === 60000, JSON.stringify(created));
    await control('sim.advance', { ms: 2000 });
    const half = await client.request({ method: 'tasks/get', params: { taskId: id } }, GetTaskResultSchema);
    check('after 2 s the status message tells the progress', half.status === 'working' &&
        /downloading: 50%/.test(half.statusMessage ?? ''), JSON.stringify(half));
    // tasks/result of a working task waits (its POST stays open) until the task ends
    let held = 'waiting';
    const heldResult = client.request({ method: 'tasks/result', params: { taskId: id } }, CallToolResultSchema)
        .then((r) => { held = 'answered'; return r; }, (e) => { held = `failed: ${e.message}`; return null; });
    await new Promise((resolve) => setTimeout(resolve, 400));
    check('tasks/result of a working task waits', held === 'waiting', held);
    const polled = await client.request({ method: 'tasks/get', params: { taskId: id } }, GetTaskResultSchema);
    check('tasks/get answers while a tasks/result waits', polled.status === 'working' && held === 'waiting',
        `${polled.status} ${held}`);
    await control('sim.advance', { ms: 3000 });
    const result = await heldResult;
    check('the waiting tasks/result is answered when the task completes', held === 'answered', held);
    const done = await client.request({ method: 'tasks/get', params: { taskId: id } }, GetTaskResultSchema);
    check('tasks/get reaches completed', done.status === 'completed', JSON.stringify(done));
    const increasing = progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress);
    // one notification per drain: the steps a sim.advance runs at once send the latest only
    check('notifications/progress while the task worked (KiB of 1024, increasing, with the status message)',
        progress.length >= 2 && progress[0].progress === 0 && increasing && progress.every((p) => p.total === 1024) &&
        /downloading: 50%/.test(progress.find((p) => p.progress === 512)?.message ?? ''),
        JSON.stringify(progress));
    check('tasks/result is the CallToolResult, related to the task', result !== null && !result.isError &&
        /1048576 bytes/.test(result.content?.[0]?.text ?? '') &&
        result._meta?.['io.modelcontextprotocol/related-task']?.taskId === id, JSON.stringify(result));

    const second = await client.request({ method: 'tools/call',
        params: { name: 'firmware_update', arguments: { url }, task: {} } }, CreateTaskResultSchema);
    const listed = await client.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
    check('tasks/list has both tasks', [id, second.task.taskId].every((t) => listed.tasks.some((x) => x.taskId === t)),
        JSON.stringify(listed));
    const cancelled = await client.request({ method: 'tasks/cancel', params: { taskId: second.task.taskId } },
        CancelTaskResultSchema);
    check('tasks/cancel answers the cancelled task', cancelled.status === 'cancelled', JSON.stringify(cancelled));
    await control('sim.advance', { ms: 5000 });
    const still = await client.request({ method: 'tasks/get', params: { taskId: second.task.taskId } }, GetTaskResultSchema);
    check('a cancelled task stays cancelled', still.status === 'cancelled', JSON.stringify(still));
    check('cancelling a completed task is -32602', (await errorCode(client.request({ method: 'tasks/cancel',
        params: { taskId: id } }, CancelTaskResultSchema))) === -32602);
    check('an unknown task is -32602', (await errorCode(client.request({ method: 'tasks/get',
        params: { taskId: 'task-999' } }, GetTaskResultSchema))) === -32602);
    const bad = await client.request({ method: 'tools/call',
        params: { name: 'firmware_update', arguments: { url: 'ftp://x/fw.bin' }, task: {} } }, CreateTaskResultSchema);
    const badDone = await client.request({ method: 'tasks/get', params: { taskId: bad.task.taskId } }, GetTaskResultSchema);
    check('an ftp:// url completes as a tool error', badDone.status === 'completed' &&
        /refused/.test(badDone.statusMessage ?? ''), JSON.stringify(badDone));
    await control('sim.advance', { ms: 61000 });
    check('after its 60 s ttl the task is gone', (await errorCode(client.request({ method: 'tasks/get',
        params: { taskId: id } }, GetTaskResultSchema))) === -32602);

    // ---------------------------------------------------------------- older revisions: no tasks
    const post = async (body, sid) => {
        const r = await fetch(HTTP_URL, { method: 'POST', body: JSON.stringify(body), headers: {
            'content-type': 'application/json', accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-06-18', ...(sid ? { 'mcp-session-id': sid } : {}) } });
        const text = await r.text();
        const json = text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data:'))?.slice(5);
        return { sid: r.headers.get('mcp-session-id'), msg: json ? JSON.parse(json) : null };
    };
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18',
        capabilities: {}, clientInfo: { name: 'old', version: '1' } } });
    check('a 2025-06-18 session declares no tasks', init.msg?.result?.protocolVersion === '2025-06-18' &&
        init.msg.result.capabilities?.tasks === undefined, JSON.stringify(init.msg));
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, init.sid);
    const oldList = await post({ jsonrpc: '2.0', id: 2, method: 'tasks/list', params: {} }, init.sid);
    check('tasks/list in a 2025-06-18 session is -32601', oldList.msg?.error?.code === -32601, JSON.stringify(oldList.msg));
    const oldCall = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'firmware_update',
        arguments: { url }, task: {} } }, init.sid);
    check('firmware_update in a 2025-06-18 session is refused', oldCall.msg?.error !== undefined &&
        oldCall.msg?.result === undefined, JSON.stringify(oldCall.msg));
    await client.close();
}

try {
    await main();
} catch (e) {
    check('no exception', false, e?.stack ?? String(e));
}
process.exit(Math.min(failures, 100));
