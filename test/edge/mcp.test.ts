import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpClient } from '../mcp/client.ts';
import { ADMIN, type Stack, createKey, createQuery, startStack } from './fixture.ts';

/**
 * `/mcp` through the edge Worker, like any other route: the edge checks the
 * key, forwards the session's requests with its signed assertion instead of
 * the key, and the origin answers; a bad key stops at the edge.
 */
let stack: Stack;
const clients: McpClient[] = [];

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await stack?.stop();
});

describe('MCP through the edge', () => {
  it('lists and calls a key’s tools, the requests forwarded to the origin without the key', async () => {
    const query = await createQuery(stack, { sql: 'SELECT 42 AS answer' });
    const { secret } = await createKey(stack, { queries: [query] });
    const client = await connectMcp(`${stack.edge.url}/mcp`, { 'X-API-Key': secret }, 'edge');
    clients.push(client);
    expect((await client.tools()).map((tool) => tool.name)).toEqual([query]);
    const result = await client.call(query);
    expect(result.structuredContent).toMatchObject({ rows: [{ answer: 42 }], row_count: 1 });
    expect(stack.reached.filter((line) => line === 'POST /mcp').length).toBeGreaterThanOrEqual(3);
    const sent = stack.reachedHeaders[stack.reached.lastIndexOf('POST /mcp')];
    expect(sent['x-api-key']).toBeUndefined();
    expect(sent['mcp-session-id']).toBeTruthy();
  });

  it('refuses a wrong key at the edge', async () => {
    const before = stack.reached.length;
    await expect(connectMcp(`${stack.edge.url}/mcp`, { 'X-API-Key': 'slc_not-a-key' }, 'edge')).rejects.toMatchObject({ code: 401 });
    expect(stack.reached.slice(before).filter((line) => line.endsWith(' /mcp'))).toEqual([]);
  });

  it('serves the server key too', async () => {
    const client = await connectMcp(`${stack.edge.url}/mcp`, ADMIN, 'edge');
    clients.push(client);
    expect((await client.tools()).map((tool) => tool.name)).toContain('execute_sql');
  });
});
