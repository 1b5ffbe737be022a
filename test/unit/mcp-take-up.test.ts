import { describe, expect, it } from 'vitest';
import { loadMcpSdk } from '../../origin/routes/mcp/sdk.ts';
import { replayInitialize } from '../../origin/routes/mcp/take-up.ts';
import { storedInit } from '../../origin/services/mcp/session-records.ts';

/**
 * Taking an MCP session up on another origin plays the client's stored
 * `initialize` again through the SDK's public transport API (take-up.ts,
 * ADR 0033). These fail if an SDK upgrade stops that leaving the transport
 * and server as the session's were: the id the generator gave, the client
 * known, later messages with that id accepted, another `initialize` refused.
 */

const ID = '0b5c3f5e-2a4e-4d55-9d0e-3f1c2b7a9e11';
const INIT = { protocolVersion: '2025-11-25', capabilities: { roots: { listChanged: true } }, clientInfo: { name: 'agent', version: '1.2.3' } };
const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };

async function takenUp() {
  const sdk = await loadMcpSdk();
  const server = new sdk.Server({ name: 'sluice', version: 'test' }, { capabilities: { tools: {} } });
  server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({ tools: [] }));
  const transport = new sdk.Transport({ sessionIdGenerator: () => ID, enableJsonResponse: true });
  void server.connect(transport);
  await replayInitialize(transport, INIT);
  return { server, transport };
}

const post = (id: string, message: unknown) =>
  new Request('http://origin.invalid/mcp', { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': id }, body: JSON.stringify(message) });

describe('a session taken up by replaying its initialize', () => {
  it('has the id and the client of the session', async () => {
    const { server, transport } = await takenUp();
    expect(transport.sessionId).toBe(ID);
    expect(server.getClientVersion()).toEqual(INIT.clientInfo);
    expect(server.getClientCapabilities()).toEqual(INIT.capabilities);
    await server.close();
  });

  it('answers a request carrying the id, refuses another id and a second initialize', async () => {
    const { server, transport } = await takenUp();
    const listed = await transport.handleRequest(post(ID, { jsonrpc: '2.0', id: 7, method: 'tools/list' }));
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ jsonrpc: '2.0', id: 7, result: { tools: [] } });
    expect((await transport.handleRequest(post('another', { jsonrpc: '2.0', id: 8, method: 'tools/list' }))).status).toBe(404);
    const again = await transport.handleRequest(post(ID, { jsonrpc: '2.0', id: 9, method: 'initialize', params: INIT }));
    expect(again.status).toBe(400);
    await server.close();
  });
});

describe('a stored initialize the SDK would not take', () => {
  it('fails the take-up, leaving the transport without a session', async () => {
    const sdk = await loadMcpSdk();
    const server = new sdk.Server({ name: 'sluice', version: 'test' }, { capabilities: { tools: {} } });
    const transport = new sdk.Transport({ sessionIdGenerator: () => ID, enableJsonResponse: true });
    void server.connect(transport);
    await expect(replayInitialize(transport, { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {} })).rejects.toThrow(/refused/);
    expect(transport.sessionId).toBeUndefined();
    await server.close();
  });
});

describe('what is kept of initialize', () => {
  it('is the whole of it when small, what names the client when large', () => {
    expect(storedInit(INIT)).toEqual(INIT);
    const large = { ...INIT, capabilities: { experimental: { blob: 'x'.repeat(10_000) } }, clientInfo: { name: 'agent', version: '1', title: 'y'.repeat(10_000) } };
    expect(storedInit(large)).toEqual({ protocolVersion: INIT.protocolVersion, capabilities: {}, clientInfo: { name: 'agent', version: '1' } });
  });
});
