import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, makeKey } from '../grants/fixture.ts';
import { eventually } from '../harness/eventually.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';

/**
 * An MCP session begun on one origin goes on on another sharing the store
 * (docs/guides/mcp.md, ADR 0033), with the SDK's own client: its requests go
 * to whichever origin the test points it at, as behind a load balancer
 * without affinity. A session ended or expired is gone on both; another
 * caller presenting its id is told it does not exist, on both.
 */

let store: FreshDatabase;
let folder: string;
let a: Origin;
let b: Origin;

beforeAll(async () => {
  [store, folder] = await Promise.all([freshDatabase(), mkdtemp(join(tmpdir(), 'sluice-mcp-origins-'))]);
  const env = { SLUICE_DATABASE_URL: store.url, SLUICE_API_KEY: ADMIN_KEY };
  // One at a time: the first migrates the new store and installs the examples.
  a = await startOrigin({ dataDir: join(folder, 'a'), template: false, edge: false, env });
  b = await startOrigin({ dataDir: join(folder, 'b'), template: false, edge: false, env });
}, 180_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await store?.drop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** The SDK's client with the server key; `to` says which origin its next request goes to. */
async function agent(): Promise<{ client: Client; transport: StreamableHTTPClientTransport; to: { origin: Origin } }> {
  const to = { origin: a };
  const transport = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), {
    requestInit: { headers: { 'X-API-Key': ADMIN_KEY } },
    fetch: (input, init) => {
      const url = new URL(String(input));
      return to.origin.fetch(url.pathname + url.search, init);
    },
  });
  const client = new Client({ name: 'sluice-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, to };
}

/** A raw `tools/list` in session `id`: its status, and whether it was answered. */
async function listWith(origin: Origin, id: string, key = ADMIN_KEY): Promise<number> {
  const res = await origin.fetch('/mcp', {
    method: 'POST',
    headers: { 'x-api-key': key, 'mcp-session-id': id, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  await res.body?.cancel();
  return res.status;
}

describe('an MCP session on two origins sharing the store', () => {
  it('is taken up on the other origin: tools/list and tools/call there, as the same caller only', async () => {
    const { client, transport, to } = await agent();
    const id = transport.sessionId!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    to.origin = b;
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toContain('list_connections');
    const result = (await client.callTool({ name: 'list_connections', arguments: {} })) as CallToolResult;
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(JSON.stringify(result.structuredContent)).toContain('connections');
    // Back on the origin that began it, and again on the other: one session throughout.
    to.origin = a;
    expect((await client.listTools()).tools.length).toBe(tools.length);
    to.origin = b;
    expect((await client.callTool({ name: 'list_connections', arguments: {} })).isError).toBeFalsy();
    expect(transport.sessionId).toBe(id);

    const other = await makeKey(a, { connections: ['*'] });
    expect(await listWith(b, id, other.secret)).toBe(404);
    expect(await listWith(a, id, other.secret)).toBe(404);
    // The owner is unaffected by another caller's try.
    expect(await listWith(b, id)).toBe(200);
    await client.close();
  });

  it('ended on one origin, it is gone on the other, which held it too', async () => {
    const { client, transport, to } = await agent();
    const id = transport.sessionId!;
    to.origin = b;
    await client.listTools();
    expect(await listWith(a, id)).toBe(200);

    await transport.terminateSession();
    expect(await listWith(a, id)).toBe(404);
    expect(await listWith(b, id)).toBe(404);
    await client.close();
  });

  it('idle past the limit, it is gone on both: on the origin that holds it once the store ends it', async () => {
    const { client, transport } = await agent();
    const id = transport.sessionId!;
    expect(await listWith(a, id)).toBe(200);

    // Its last use half an hour ago, as the store counts: nothing is held on b, which asks the store.
    const sql = postgres(store.url, { max: 1, onnotice: () => {} });
    try {
      const moved = await sql`update mcp_sessions set last_used = now() - interval '31 minutes' returning id_hash`;
      expect(moved.length).toBeGreaterThan(0);
    } finally {
      await sql.end({ timeout: 5 });
    }
    expect(await listWith(b, id)).toBe(404);
    // a holds it in memory until its sweep (every 10 s) ends it everywhere.
    await eventually(async () => (await listWith(a, id)) === 404, { what: 'the idle session gone on a', timeoutMs: 20_000, intervalMs: 500 });
    expect(await listWith(b, id)).toBe(404);
    await client.close().catch(() => {});
  }, 60_000);

  it('stores the SHA-256 of a session id, never the id', async () => {
    const { client, transport } = await agent();
    const id = transport.sessionId!;
    const sql = postgres(store.url, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql`select id_hash, owner, init::text as init from mcp_sessions`;
      expect(rows.some((row) => row.id_hash === id || row.init.includes(id))).toBe(false);
      expect(rows.map((row) => row.id_hash)).toContain(createHash('sha256').update(id).digest('hex'));
    } finally {
      await sql.end({ timeout: 5 });
    }
    await client.close();
  });
});
