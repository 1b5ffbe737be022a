import { describe, expect, it } from 'vitest';
import { ADMIN_KEY } from '../grants/fixture.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';
import { adminMcp } from './client.ts';

/**
 * A tool call ends in the database when its caller ends it: the client
 * cancelling the call (MCP's `notifications/cancelled`) or going away from
 * the `/mcp` request that carries it. Either way the statement stops
 * (pg_stat_activity no longer shows it) and the session serves the next call.
 */

const SETTLE_MS = 10_000;
const mcp = adminMcp();

async function running(tag: string): Promise<number> {
  const [row] = await mcp.env.db.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE $1 AND state <> 'idle' AND pid <> pg_backend_pid()", [`%${tag}%`]);
  return Number(row.n);
}

const slowSql = (tag: string) => `select pg_sleep(60) as ${tag}`;

describe('an MCP tool call its caller ends', () => {
  it('stops in the database when the client cancels the call', async () => {
    const tag = unique('mcp_cancel');
    const controller = new AbortController();
    const call = mcp.client.client.callTool({ name: 'execute_sql', arguments: { connection_name: mcp.env.pg, sql: slowSql(tag) } }, undefined, { signal: controller.signal });
    call.catch(() => {});
    await eventually(async () => (await running(tag)) === 1, { what: 'the statement running', timeoutMs: SETTLE_MS });
    controller.abort('not needed any more');
    await expect(call).rejects.toThrow();
    await eventually(async () => (await running(tag)) === 0, { what: 'the statement stopped', timeoutMs: SETTLE_MS });
    const next = await mcp.client.call('execute_sql', { connection_name: mcp.env.pg, sql: 'select count(*) as n from films' });
    expect(next.structuredContent).toMatchObject({ rows: [{ n: 3 }] });
  }, 60_000);

  it('stops in the database when the client leaves the /mcp request', async () => {
    const tag = unique('mcp_gone');
    // The client's own session, the call sent by hand so that leaving it is only closing its request.
    const session = { 'x-api-key': ADMIN_KEY, 'mcp-session-id': mcp.client.client.transport!.sessionId!, 'mcp-protocol-version': '2025-06-18' };
    const controller = new AbortController();
    const post = fetch(`${mcp.env.origin.url}/mcp`, {
      method: 'POST',
      headers: { ...session, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: `gone-${tag}`, method: 'tools/call', params: { name: 'execute_sql', arguments: { connection_name: mcp.env.pg, sql: slowSql(tag) } } }),
      signal: controller.signal,
    });
    post.catch(() => {});
    await eventually(async () => (await running(tag)) === 1, { what: 'the statement running', timeoutMs: SETTLE_MS });
    controller.abort();
    await eventually(async () => (await running(tag)) === 0, { what: 'the statement stopped', timeoutMs: SETTLE_MS });
  }, 60_000);
});
