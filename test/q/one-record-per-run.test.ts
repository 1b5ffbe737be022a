import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '../harness/unique.ts';
import { exportRoot, localDestination, newExport, runExport } from '../exports/fixture.ts';
import { connectMcp } from '../mcp/client.ts';
import { type MongoEnv, seed, startMongoEnv } from '../mongo/fixture.ts';
import { createQuery, getQ, history, recordedOf, requestIdOf } from './fixture.ts';

/**
 * Every transport reaches the database through the one run path
 * (origin/services/run/run.ts), which records each run exactly once: a
 * page, a stream, a document find, an MCP tool call and an export run each
 * leave one history entry, and a request refused before anything ran
 * leaves none.
 */

let env: MongoEnv;
let films: string;
let collection: string;
let root: string;

beforeAll(async () => {
  root = await exportRoot();
  env = await startMongoEnv({ SLUICE_EXPORT_DIRS: root });
  films = await createQuery(env.origin, { sql: 'SELECT id, title FROM films WHERE id <= :max_id ORDER BY id', parameters: { max_id: 'integer' } }, 'films');
  collection = await seed(env, [{ n: 1 }, { n: 2 }, { n: 3 }]);
});

afterAll(async () => {
  await env?.close();
});

/** The history entries of one request, once every run before a marker run has been written. */
async function entriesOf(requestId: string) {
  await recordedOf(env.origin, []);
  return (await history(env.origin, { limit: 1000 })).items.filter((item) => item.request_id === requestId);
}

describe('one history entry per run, whatever the transport', () => {
  it('POST /execute_sql, a page', async () => {
    const res = await env.origin.fetch('/execute_sql', { method: 'POST', json: { sql: 'SELECT 1 AS one', connection_name: 'examples' } });
    expect(res.status).toBe(200);
    expect(await entriesOf(res.headers.get('x-request-id')!)).toEqual([expect.objectContaining({ transport: 'http', status: 'success', rows: 1 })]);
  });

  it('GET /q/<name>, a page and a stream', async () => {
    const page = await getQ(env.origin, films, { max_id: 3 });
    expect(page.status).toBe(200);
    expect(await entriesOf(requestIdOf(page))).toEqual([expect.objectContaining({ query: films, transport: 'http', rows: 3 })]);
    const stream = await getQ(env.origin, films, { max_id: 4, stream: 'true', format: 'csv' });
    expect(stream.status).toBe(200);
    expect(await entriesOf(requestIdOf(stream))).toEqual([expect.objectContaining({ query: films, transport: 'stream', rows: 4 })]);
  });

  it('POST /execute_mongo, a page and a stream', async () => {
    for (const stream of [false, true]) {
      const res = await env.origin.fetch(`/execute_mongo${stream ? '?stream=true&format=ndjson' : ''}`, { method: 'POST', json: { connection_name: env.connection, collection } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(await entriesOf(res.headers.get('x-request-id')!)).toEqual([expect.objectContaining({ connection: env.connection, transport: stream ? 'stream' : 'http', rows: 3 })]);
    }
  });

  it('an MCP tool call', async () => {
    const client = await connectMcp(`${env.origin.url}/mcp`, {});
    try {
      const result = await client.call('execute_sql', { sql: 'SELECT 1 AS one', connection_name: 'examples' });
      expect(result.isError ?? false).toBe(false);
      const id = client.requestIds.at(-1)!;
      expect(await entriesOf(id)).toEqual([expect.objectContaining({ transport: 'mcp', status: 'success', rows: 1 })]);
    } finally {
      await client.close();
    }
  });

  it('an export run, and one that fails', async () => {
    const destination = await localDestination(env.origin, root);
    const exported = async (name: string, query: string) => {
      await recordedOf(env.origin, []);
      return (await history(env.origin, { limit: 1000, query })).items.filter((item) => item.transport === 'export' && (item as { export?: string }).export === name);
    };
    const good = await newExport(env.origin, { query: films, format: 'csv', destination, params: { max_id: 2 } });
    expect((await runExport(env.origin, good)).status).toBe(201);
    expect(await exported(good, films)).toEqual([expect.objectContaining({ status: 'success', rows: 2 })]);

    const broken = await createQuery(env.origin, { sql: "SELECT id, CAST(CASE WHEN id = :at THEN 'x' ELSE '1' END AS INTEGER) AS boom FROM films ORDER BY id", parameters: { at: 'integer' } });
    const failing = await newExport(env.origin, { query: broken, format: 'csv', destination, params: { at: 3 } });
    expect((await runExport(env.origin, failing)).status).toBeGreaterThanOrEqual(400);
    expect(await exported(failing, broken)).toEqual([expect.objectContaining({ status: 'error', rows: 0 })]);
  });
});

describe('no entry for a request refused before anything ran', () => {
  it('refusals on /execute_sql, /q and /execute_mongo', async () => {
    const refused = [
      await env.origin.fetch('/execute_sql', { method: 'POST', json: { sql: 'SELECT 1; SELECT 2', connection_name: 'examples' } }),
      await env.origin.fetch('/execute_sql', { method: 'POST', json: { sql: 'SELECT 1', connection_name: unique('missing') } }),
      await env.origin.fetch(`/q/${films}?max_id=many`),
      await env.origin.fetch(`/q/${unique('missing')}`),
      await env.origin.fetch('/execute_mongo', { method: 'POST', json: { connection_name: env.connection, collection, filter: { $where: 'true' } } }),
    ];
    for (const res of refused) expect(res.status).toBeGreaterThanOrEqual(400);
    expect(refused.map((res) => res.status).every((status) => status < 500)).toBe(true);
    expect(await recordedOf(env.origin, refused.map((res) => res.headers.get('x-request-id')!))).toEqual([]);
  });
});
