import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { SessionInit } from '../../services/mcp/session-records.ts';

/**
 * Brings a new transport (made with a `sessionIdGenerator` that answers the
 * session's id) and its connected server to where the session's were after
 * its `initialize`, on an origin that did not answer it (ADR 0033). The SDK
 * has no way to resume a session: the transport takes its id from the
 * generator only while answering `initialize`, and refuses every other
 * message until then; the server learns its client only from that request.
 * So the client's stored `initialize` is played again through the
 * transport's public `handleRequest`.
 * test/unit/mcp-take-up.test.ts fails if an SDK upgrade stops this working.
 */
export async function replayInitialize(transport: WebStandardStreamableHTTPServerTransport, init: SessionInit): Promise<void> {
  const request = new Request('http://origin.invalid/mcp', {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
  });
  const response = await transport.handleRequest(request, { parsedBody: { jsonrpc: '2.0', id: 0, method: 'initialize', params: init } });
  // The answer is the client's to have had; only whether the transport took the session matters here.
  await response.body?.cancel();
  if (response.status !== 200 || transport.sessionId === undefined) throw new Error(`The MCP SDK refused a stored initialize played again (${response.status})`);
}
