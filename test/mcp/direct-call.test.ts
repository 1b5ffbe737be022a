import { describe, expect, it } from 'vitest';
import { ADMIN_KEY } from '../grants/fixture.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';
import { adminMcp } from './client.ts';

/**
 * `tools/call` is answered without the SDK's transport when it is one plain
 * request with the headers the transport requires (ADR 0029); every other
 * message goes to the SDK. Both must answer alike: a call sent as a batch
 * of one takes the SDK's path (which answers a batch of one with the one
 * answer), the same call alone the direct one.
 */

const mcp = adminMcp();

const ACCEPT = 'application/json, text/event-stream';

function post(body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(`${mcp.env.origin.url}/mcp`, {
    method: 'POST',
    headers: {
      'x-api-key': ADMIN_KEY,
      'mcp-session-id': mcp.client.client.transport!.sessionId!,
      'mcp-protocol-version': '2025-06-18',
      'content-type': 'application/json',
      accept: ACCEPT,
      ...headers,
    },
    body: JSON.stringify(body),
    signal,
  });
}

const toolCall = (id: string, name: string, args: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

async function running(tag: string): Promise<number> {
  const [row] = await mcp.env.db.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE $1 AND state <> 'idle' AND pid <> pg_backend_pid()", [`%${tag}%`]);
  return Number(row.n);
}

describe('a tool call on the direct path', () => {
  it('answers what the SDK answers for the same call: the result, its session and content type', async () => {
    const args = { connection_name: mcp.env.pg, sql: "select id, title, 'it''s \"quoted\"\n' as note from films order by id" };
    const direct = await post(toolCall('direct-1', 'execute_sql', args));
    const viaSdk = await post([toolCall('sdk-1', 'execute_sql', args)]);
    expect(direct.status).toBe(200);
    expect(direct.headers.get('content-type')).toMatch(/^application\/json/);
    expect(direct.headers.get('mcp-session-id')).toBe(mcp.client.client.transport!.sessionId);
    const fromSdk = await viaSdk.json();
    const fromDirect = await direct.json();
    expect(fromDirect).toEqual({ ...fromSdk, id: 'direct-1' });
    expect(fromDirect.result.structuredContent.rows).toHaveLength(3);
  });

  it('answers a csv call as the SDK does: the same text and compact structured rows', async () => {
    const args = { connection_name: mcp.env.pg, sql: "select id, title, 'it''s \"quoted\"\n' as note from films order by id", format: 'csv' };
    const fromDirect = await (await post(toolCall('direct-csv', 'execute_sql', args))).json();
    const fromSdk = await (await post([toolCall('sdk-csv', 'execute_sql', args)])).json();
    expect(fromDirect).toEqual({ ...fromSdk, id: 'direct-csv' });
    expect(fromDirect.result.content[1].text).toBe('id,title,note\r\n1,Alpha,"it\'s ""quoted""\n"\r\n2,Beta,"it\'s ""quoted""\n"\r\n3,Gamma,"it\'s ""quoted""\n"\r\n');
    expect(fromDirect.result.structuredContent).toMatchObject({ columns: ['id', 'title', 'note'], row_count: 3, truncated: false });
    expect(fromDirect.result.structuredContent.rows[0]).toEqual([1, 'Alpha', 'it\'s "quoted"\n']);
  });

  it('answers an unknown tool with the same protocol error as the SDK (-32602)', async () => {
    const direct = await (await post(toolCall('direct-2', 'no_such_tool', {}))).json();
    const fromSdk = await (await post([toolCall('sdk-2', 'no_such_tool', {})])).json();
    expect(direct.error).toEqual(fromSdk.error);
    expect(direct.error.code).toBe(-32602);
    expect(direct.error.message).toContain('Unknown tool: no_such_tool');
  });

  it('leaves to the SDK what it must refuse: arguments not an object, an unknown protocol version, a client that does not accept both types', async () => {
    const badArguments = await (await post(toolCall('bad-1', 'execute_sql', 'select 1'))).json();
    // The SDK's own refusal: its schema's problem, by path.
    expect(badArguments.error.message).toContain('"arguments"');
    const badVersion = await post(toolCall('bad-2', 'list_connections', {}), { 'mcp-protocol-version': '1999-01-01' });
    expect(badVersion.status).toBe(400);
    expect((await badVersion.json()).error.message).toContain('Unsupported protocol version');
    const jsonOnly = await post(toolCall('bad-3', 'list_connections', {}), { accept: 'application/json' });
    expect(jsonOnly.status).toBe(406);
  });

  it('stops its statement on notifications/cancelled and closes the call’s request with 202, no answer', async () => {
    const tag = unique('direct_cancel');
    const call = post(toolCall(`slow-${tag}`, 'execute_sql', { connection_name: mcp.env.pg, sql: `select pg_sleep(60) as ${tag}` }));
    await eventually(async () => (await running(tag)) === 1, { what: 'the statement running', timeoutMs: 10_000 });
    const cancel = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: `slow-${tag}`, reason: 'not needed' } });
    expect(cancel.status).toBe(202);
    const closed = await call;
    expect(closed.status).toBe(202);
    expect(await closed.text()).toBe('');
    await eventually(async () => (await running(tag)) === 0, { what: 'the statement stopped', timeoutMs: 10_000 });
    const next = await (await post(toolCall(`next-${tag}`, 'execute_sql', { connection_name: mcp.env.pg, sql: 'select count(*) as n from films' }))).json();
    expect(next.result.structuredContent.rows).toEqual([{ n: 3 }]);
  }, 30_000);
});
