// tools/interop/sdk-v2-test.mjs: mcpsim with the TypeScript SDK v2 client (@modelcontextprotocol/
// client): over Streamable HTTP it negotiates MCP 2026-07-28 (server/discover, stateless
// requests with _meta), pinned to it, and the 2025 initialize handshake in its legacy mode.
//
// Run by tools/interop-test with MCPSIM_HTTP (an mcpsim with --conformance-fixtures). Every
// check prints one line; the exit status is the number of failed checks (capped), 0 when all
// pass.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const HTTP_URL = process.env.MCPSIM_HTTP;
if (!HTTP_URL) throw new Error('MCPSIM_HTTP is not set (run tools/interop-test)');

let failures = 0;
function check(name, ok, detail) {
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail !== undefined ? `: ${detail}` : ''}`);
    if (!ok) failures++;
    return ok;
}

/* One connection in a negotiation mode: connect, list, call, read; then close. */
async function session(label, versionNegotiation, wantEra) {
    const client = new Client({ name: 'mcpsim-interop-v2', version: '1.0.0' }, { versionNegotiation });
    const transport = new StreamableHTTPClientTransport(new URL(HTTP_URL));
    try {
        await client.connect(transport);
        const era = client.getProtocolEra();
        check(`${label}: connects, era ${wantEra}`, era === wantEra,
            `era ${era}, version ${client.getNegotiatedProtocolVersion()}`);
        if (wantEra === 'modern')
            check(`${label}: negotiated 2026-07-28`, client.getNegotiatedProtocolVersion() === '2026-07-28',
                client.getNegotiatedProtocolVersion());
        if (wantEra === 'legacy')
            check(`${label}: a session id (initialize)`, typeof transport.sessionId === 'string', transport.sessionId);
        const tools = await client.listTools();
        const names = tools.tools.map((t) => t.name);
        check(`${label}: tools/list has gpio_write and the fixtures`,
            names.includes('gpio_write') && names.includes('test_simple_text'), names.join(','));
        const call = await client.callTool({ name: 'test_simple_text', arguments: {} });
        check(`${label}: tools/call test_simple_text`,
            call.content?.[0]?.text === 'This is a simple text response for testing.', JSON.stringify(call));
        const info = await client.callTool({ name: 'system_info', arguments: {} });
        check(`${label}: tools/call system_info (the board)`, info.isError !== true &&
            JSON.stringify(info).includes('uptime'), JSON.stringify(info).slice(0, 200));
        const res = await client.readResource({ uri: 'test://static-text' });
        check(`${label}: resources/read`, res.contents?.[0]?.text?.startsWith('This is the content'),
            JSON.stringify(res));
        const prompts = await client.listPrompts();
        check(`${label}: prompts/list`, prompts.prompts.some((p) => p.name === 'board_overview'),
            JSON.stringify(prompts).slice(0, 200));
    } catch (e) {
        check(`${label}: no error`, false, e?.stack ?? String(e));
    } finally {
        await client.close().catch(() => {});
    }
}

await session('v2 client, auto negotiation', { mode: 'auto' }, 'modern');
await session('v2 client, pinned to 2026-07-28', { mode: { pin: '2026-07-28' } }, 'modern');
await session('v2 client, legacy mode', { mode: 'legacy' }, 'legacy');
process.exit(Math.min(failures, 100));
