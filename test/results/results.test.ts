import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckRead } from '../formats/readers.ts';
import { ADMIN_KEY, type GrantsEnv, admin, as, makeKey, saveQuery, startGrantsOrigin } from '../grants/fixture.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';
import { createTestDb } from '../query/fixture.ts';

/**
 * Stored results (docs/reference/results.md): a run's rows written as
 * numbered chunk files, each a whole file of its format, read through
 * signed links that need no key; polled while they are written, cancelled
 * with DELETE, seen only by the caller that made them.
 */

let env: GrantsEnv;
let duck: string;
let folder: string;

beforeAll(async () => {
  env = await startGrantsOrigin();
  folder = await mkdtemp(join(tmpdir(), 'sluice-results-'));
  const db = await createTestDb('duckdb', folder);
  await db.exec("CREATE TABLE typed AS SELECT range AS id, 'name ' || range AS name, range * 1.5 AS amount, DATE '2026-01-01' + range::int AS day FROM range(25)");
  duck = unique('duck');
  const added = await admin(env.origin, 'POST', '/api/v1/connections', { name: duck, ...db.fields });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
});

afterAll(async () => {
  await env?.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

const post = (body: Record<string, unknown>, key = ADMIN_KEY) => env.origin.call('POST', '/results', body, { 'x-api-key': key });
const get = (id: string, key = ADMIN_KEY) => env.origin.call('GET', `/results/${id}`, undefined, { 'x-api-key': key });

/** The result once it has finished, polled as a client would. */
async function finished(id: string, key = ADMIN_KEY): Promise<any> {
  let last: any;
  await eventually(
    async () => {
      last = (await get(id, key)).body;
      return last.state !== 'running' && last.state !== 'queued';
    },
    { what: `result ${id} finished`, timeoutMs: 60_000 },
  );
  return last;
}

/** A chunk's bytes through its link, with no key. */
async function download(url: string, headers: Record<string, string> = {}): Promise<Response> {
  const target = new URL(url);
  expect(target.hostname).toBe('127.0.0.1');
  return fetch(url, { headers });
}

const bytesOf = async (res: Response) => Buffer.from(await res.arrayBuffer());

describe('POST /results', () => {
  it('2,000,000 DuckDB rows as ndjson in chunks of 500,000: 202 at once, chunks listed while it runs, their union the stream byte for byte', async () => {
    const sql = 'SELECT range AS n, range * 2 AS twice FROM range(2000000)';
    const started = await post({ sql, connection_name: duck, format: 'ndjson', chunk_rows: 500_000, wait: 0 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.headers.get('location')).toBe(`/results/${started.body.id}`);
    expect(started.body).toMatchObject({ state: 'running', format: 'ndjson', query: null, version: null, connection: duck, truncated: false, error: null, finished_at: null });
    const seen = new Set<number>();
    let whileRunning = false;
    await eventually(
      async () => {
        const now = (await get(started.body.id)).body;
        if (now.state === 'running' && now.chunks.length > 0) whileRunning = true;
        for (const chunk of now.chunks) seen.add(chunk.index);
        return now.state === 'succeeded';
      },
      { what: 'the result written', timeoutMs: 120_000, intervalMs: 50 },
    );
    expect(whileRunning).toBe(true);
    const done = await finished(started.body.id);
    expect(done.chunks.map((chunk: any) => [chunk.index, chunk.rows])).toEqual([[0, 500_000], [1, 500_000], [2, 500_000], [3, 500_000]]);
    expect(done.rows).toBe(2_000_000);
    const parts = await Promise.all(done.chunks.map(async (chunk: any) => bytesOf(await download(chunk.url))));
    expect(parts.map((part) => part.length)).toEqual(done.chunks.map((chunk: any) => chunk.bytes));
    expect(done.bytes).toBe(parts.reduce((sum, part) => sum + part.length, 0));
    const streamed = await env.origin.fetch('/execute_sql?stream=true&format=ndjson', { method: 'POST', headers: { 'x-api-key': ADMIN_KEY }, json: { sql, connection_name: duck } });
    expect(Buffer.concat(parts).equals(await bytesOf(streamed))).toBe(true);
  }, 180_000);

  it('csv and tsv chunks each carry the header line; an empty result is one chunk of only the header', async () => {
    for (const format of ['csv', 'tsv']) {
      const res = await post({ sql: 'SELECT id, name FROM typed ORDER BY id', connection_name: duck, format, chunk_rows: 10 });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.chunks.map((chunk: any) => chunk.rows)).toEqual([10, 10, 5]);
      const texts = await Promise.all(res.body.chunks.map(async (chunk: any) => (await download(chunk.url)).text()));
      const separator = format === 'csv' ? ',' : '\t';
      for (const text of texts as string[]) expect(text.split(/\r?\n/)[0]).toBe(`id${separator}name`);
      const ids = texts.flatMap((text: string) => text.trim().split(/\r?\n/).slice(1).map((line) => Number(line.split(separator)[0])));
      expect(ids).toEqual(Array.from({ length: 25 }, (_, i) => i));
    }
    const empty = await post({ sql: 'SELECT id, name FROM typed WHERE id < 0', connection_name: duck, format: 'csv' });
    expect(empty.body).toMatchObject({ state: 'succeeded', rows: 0 });
    expect(empty.body.chunks).toHaveLength(1);
    expect((await (await download(empty.body.chunks[0].url)).text()).trim()).toBe('id,name');
  });

  it('parquet chunks are whole parquet files holding the rows with their types', async () => {
    const res = await post({ sql: 'SELECT id, name, amount, day FROM typed ORDER BY id', connection_name: duck, format: 'parquet', chunk_rows: 20 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const files = await Promise.all(res.body.chunks.map(async (chunk: any) => duckRead(folder, await bytesOf(await download(chunk.url)), ['id', 'name', 'amount', 'day'])));
    expect(files.map((file) => file.count)).toEqual([20, 5]);
    for (const file of files) expect(file.types).toEqual({ id: 'BIGINT', name: 'VARCHAR', amount: 'DECIMAL(21,1)', day: 'DATE' });
    const rows = files.flatMap((file) => file.rows);
    expect(rows.map((row) => Number(row[0]))).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(rows[3]).toEqual(['3', 'name 3', '4.5', '2026-01-04']);
  });

  it('runs a saved query by name and version, recorded once in history with transport result and the result id', async () => {
    const name = unique('result_query');
    await saveQuery(env.origin, name, { sql: 'SELECT id, title FROM films WHERE id >= :from ORDER BY id', parameters: { from: { type: 'integer' } }, connection_name: env.pg });
    const res = await post({ query: name, params: { from: 2 }, format: 'ndjson' });
    expect(res.body).toMatchObject({ state: 'succeeded', query: name, version: 1, connection: env.pg, rows: 2 });
    const text = await (await download(res.body.chunks[0].url)).text();
    expect(text.trim().split('\n').map((line) => JSON.parse(line).id)).toEqual([2, 3]);
    await eventually(
      async () => {
        const history = await admin(env.origin, 'GET', `/api/v1/history?query=${name}`);
        return history.body.items?.length === 1 && history.body.items[0].transport === 'result' && history.body.items[0].result === res.body.id;
      },
      { what: 'one history entry for the result', timeoutMs: 10_000 },
    );
  });

  it('refuses what /execute_sql refuses, with nothing kept: a write, an unknown connection, a bad format, two sources', async () => {
    expect((await post({ sql: 'DELETE FROM films', connection_name: env.pg })).status).toBe(403);
    expect((await post({ sql: 'SELECT 1', connection_name: 'no_such_connection' })).status).toBe(404);
    const xml = await post({ sql: 'SELECT 1', connection_name: env.pg, format: 'xml' });
    expect(xml.status).toBe(400);
    expect(xml.body.error).toContain('cannot be streamed');
    expect((await post({ sql: 'SELECT 1', query: 'q', connection_name: env.pg })).body).toMatchObject({ error: 'Give exactly one of sql, query and mongo', code: 'invalid_request' });
    expect((await post({ sql: 'SELECT 1', connection_name: env.pg, wait: 61 })).status).toBe(400);
  });
});

describe('Prefer: respond-async', () => {
  it('answers /q/<name>?format=csv as a stored result (202, Location, Preference-Applied); without it, the same request is answered as before', async () => {
    const name = unique('async_query');
    await saveQuery(env.origin, name, { sql: 'SELECT id, title FROM films ORDER BY id', connection_name: env.pg });
    const headers = { 'x-api-key': ADMIN_KEY, prefer: 'respond-async, wait=0' };
    const started = await env.origin.call('GET', `/q/${name}?format=csv`, undefined, headers);
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.headers.get('preference-applied')).toBe('respond-async');
    expect(started.headers.get('location')).toBe(`/results/${started.body.id}`);
    expect(started.body).toMatchObject({ format: 'csv', query: name, version: 1 });
    const done = await finished(started.body.id);
    expect(await (await download(done.chunks[0].url)).text()).toBe('id,title\r\n1,Alpha\r\n2,Beta\r\n3,Gamma\r\n');
    const plain = await env.origin.fetch(`/q/${name}?format=csv`, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('preference-applied')).toBeNull();
    expect(await plain.text()).toBe('id,title\r\n1,Alpha\r\n2,Beta\r\n3,Gamma\r\n');
    const paged = await env.origin.call('GET', `/q/${name}?format=csv&page=2`, undefined, headers);
    expect(paged.status).toBe(400);
    expect(paged.body.error).toContain('stream=true');
  });

  it('answers /execute_sql with the finished result within its wait', async () => {
    const res = await env.origin.call('POST', '/execute_sql?format=ndjson', { sql: 'SELECT id FROM films ORDER BY id', connection_name: env.pg }, { 'x-api-key': ADMIN_KEY, prefer: 'respond-async; wait=20' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get('preference-applied')).toBe('respond-async');
    expect(res.body).toMatchObject({ state: 'succeeded', rows: 3, format: 'ndjson' });
  });
});

describe('chunk links', () => {
  let result: any;
  beforeAll(async () => {
    result = (await post({ sql: 'SELECT id, name FROM typed ORDER BY id', connection_name: duck, format: 'csv' })).body;
  });

  it('need no key; each of id, index, expiry and signature altered answers 403 invalid_signature', async () => {
    const url = new URL(result.chunks[0].url);
    expect((await download(url.toString())).status).toBe(200);
    const other = (await post({ sql: 'SELECT 1 AS one', connection_name: duck, format: 'csv' })).body;
    const signature = url.searchParams.get('signature')!;
    const altered = [
      url.toString().replace(result.id, other.id),
      url.toString().replace('/chunks/0', '/chunks/1'),
      url.toString().replace(`expires=${url.searchParams.get('expires')}`, `expires=${Number(url.searchParams.get('expires')) + 1}`),
      url.toString().replace(signature, `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`),
    ];
    for (const link of altered) {
      const res = await download(link);
      expect(res.status, link).toBe(403);
      expect((await res.json()).code).toBe('invalid_signature');
    }
  });

  it('serve a byte range: Range bytes=100-199 answers 206 with exactly those bytes', async () => {
    const whole = await bytesOf(await download(result.chunks[0].url));
    const part = await download(result.chunks[0].url, { range: 'bytes=100-199' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${whole.length}`);
    expect((await bytesOf(part)).equals(whole.subarray(100, 200))).toBe(true);
    expect((await download(result.chunks[0].url, { range: `bytes=${whole.length}-` })).status).toBe(416);
  });

  it('belong to their caller: another key is told the result does not exist', async () => {
    const key = await makeKey(env.origin, { connections: [env.pg] });
    const mine = await as(env.origin, key.secret).call('POST', '/results', { sql: 'SELECT id FROM films', connection_name: env.pg });
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect((await get(mine.body.id, key.secret)).status).toBe(200);
    const otherKey = await makeKey(env.origin, { connections: [env.pg] });
    const foreign = await get(mine.body.id, otherKey.secret);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('result_not_found');
    expect((await env.origin.call('DELETE', `/results/${mine.body.id}`, undefined, { 'x-api-key': otherKey.secret })).status).toBe(404);
    expect((await get(result.id, key.secret)).status).toBe(404);
    expect((await get('res_never_made_0000000000')).status).toBe(404);
  });
});

describe('DELETE /results/{id}', () => {
  it('cancels a running PostgreSQL result (the statement stops) and removes its chunks; then 404', async () => {
    const tag = unique('result_cancel');
    // A set-returning function in the select list streams: chunks land while the statement runs on.
    const started = await post({ sql: `SELECT g AS n, repeat('x', 200) AS ${tag} FROM (SELECT generate_series(1, 100000000) AS g) s`, connection_name: env.pg, chunk_rows: 10_000, wait: 0 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const running = async () => Number((await env.db.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE $1 AND state <> 'idle' AND pid <> pg_backend_pid()", [`%${tag}%`]))[0]!.n);
    await eventually(async () => (await get(started.body.id)).body.chunks.length >= 2, { what: 'two chunks written', timeoutMs: 20_000 });
    expect(await running()).toBe(1);
    const folder = join(env.origin.dataDir, 'results', started.body.id);
    expect(existsSync(folder)).toBe(true);
    const deleted = await env.origin.call('DELETE', `/results/${started.body.id}`, undefined, { 'x-api-key': ADMIN_KEY });
    expect(deleted.status).toBe(204);
    await eventually(async () => (await running()) === 0, { what: 'the statement stopped', timeoutMs: 2_000 });
    expect((await get(started.body.id)).status).toBe(404);
    expect(existsSync(folder)).toBe(false);
  });
});
