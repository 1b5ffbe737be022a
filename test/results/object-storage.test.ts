import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { type TestS3, startS3 } from '../harness/s3.ts';
import { amzDateMs } from '../harness/s3-signature.ts';
import { unique } from '../harness/unique.ts';
import { type TestDb, addConnection, createTestDb } from '../query/fixture.ts';
import { duckFixture } from '../streaming-pushdown/pushdown.ts';
import { duckQuery } from '../unit/formats/duck.ts';

/**
 * Stored results in object storage (SLUICE_RESULT_DESTINATION): chunks are
 * written under a saved bucket destination's prefix, through the S3 server
 * with its signature check in front; any origin on the store answers for a
 * result and hands out presigned links to the bucket, which expire with
 * SLUICE_RESULT_LINK_TTL; deleting, failing and expiring remove the objects.
 *
 * Origin A keeps results in the bucket; origin B, on the same store, names a
 * destination that does not exist, so its own results are refused with what
 * to do, while it still answers for A's.
 */

const ENV = { SLUICE_RESULT_LINK_TTL: '3', SLUICE_RESULT_TTL: '10', SLUICE_RESULT_LEASE: '3' };

let s3: TestS3;
let store: FreshDatabase;
let folder: string;
let a: Origin;
let b: Origin;
let db: TestDb;
let pg: string;
let destination: string;

const SQL = 'SELECT g AS n, md5(g::text) AS h FROM generate_series(1, 2500) g ORDER BY g';

beforeAll(async () => {
  [s3, store, folder] = await Promise.all([startS3({ buckets: ['results'] }), freshDatabase(), mkdtemp(join(tmpdir(), 'sluice-results-s3-'))]);
  destination = unique('results_bucket');
  const shared = { SLUICE_DATABASE_URL: store.url, ...ENV };
  [a, b] = await Promise.all([
    startOrigin({ dataDir: join(folder, 'a'), template: false, env: { ...shared, SLUICE_RESULT_DESTINATION: destination } }),
    startOrigin({ dataDir: join(folder, 'b'), template: false, env: { ...shared, SLUICE_RESULT_DESTINATION: 'not_saved' } }),
  ]);
  const saved = await a.call('POST', '/api/v1/destinations', { name: destination, url: 's3://results/kept', endpoint: s3.endpoint, region: s3.region, user: s3.accessKeyId, password: s3.secretAccessKey });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  db = await createTestDb('postgres', folder);
  pg = await addConnection(a, db);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await db?.drop();
  await Promise.all([store?.drop(), s3?.stop()]);
  if (folder) await rm(folder, { recursive: true, force: true });
});

const objects = (id: string) => s3.listObjects('results', `kept/${id}/`);

describe('results in object storage', () => {
  it('are written to the bucket, answered by another origin, and downloaded through presigned links that need no key', async () => {
    const made = await a.call('POST', '/results', { sql: SQL, connection_name: pg, format: 'ndjson', chunk_rows: 1000 });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body).toMatchObject({ state: 'succeeded', rows: 2500, truncated: false });
    const { id } = made.body;
    expect((await objects(id)).map((object) => object.key).sort()).toEqual([`kept/${id}/0.ndjson`, `kept/${id}/1.ndjson`, `kept/${id}/2.ndjson`]);
    expect(await a.fetch(`/results/${id}/chunks/0`)).toMatchObject({ status: 403 });

    const seen = await b.call('GET', `/results/${id}`);
    expect(seen.status).toBe(200);
    expect(seen.body.chunks.map((chunk: any) => [chunk.index, chunk.rows])).toEqual([
      [0, 1000],
      [1, 1000],
      [2, 500],
    ]);
    const parts: Buffer[] = [];
    for (const chunk of seen.body.chunks) {
      const link = new URL(chunk.url);
      expect(link.origin).toBe(s3.endpoint);
      expect(link.pathname).toBe(`/results/kept/${id}/${chunk.index}.ndjson`);
      // Good until the chunk's expires_at (3 s from the answer), whatever second the signing falls in.
      const signedAt = amzDateMs(link.searchParams.get('X-Amz-Date')!);
      expect(signedAt + Number(link.searchParams.get('X-Amz-Expires')) * 1000).toBe(Date.parse(chunk.expires_at));
      expect(Number(link.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(3);
      expect(chunk.url).not.toContain(s3.secretAccessKey);
      const res = await fetch(chunk.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${id}-${chunk.index}.ndjson"`);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.length).toBe(chunk.bytes);
      parts.push(bytes);
    }
    const streamed = await a.fetch('/execute_sql?stream=true&format=ndjson', { method: 'POST', json: { sql: SQL, connection_name: pg } });
    expect(Buffer.concat(parts).equals(Buffer.from(await streamed.arrayBuffer()))).toBe(true);

    // The signature is the bucket's: a changed key or signature is refused there; a passed expiry too.
    const link = new URL(seen.body.chunks[0].url);
    const otherChunk = new URL(link);
    otherChunk.pathname = `/results/kept/${id}/1.ndjson`;
    expect((await fetch(otherChunk)).status).toBe(403);
    const forged = new URL(link);
    forged.searchParams.set('X-Amz-Signature', '0'.repeat(64));
    expect((await fetch(forged)).status).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const late = await fetch(link);
    expect(late.status).toBe(403);
    expect(await late.text()).toContain('Request has expired');
    expect((await fetch((await a.call('GET', `/results/${id}`)).body.chunks[0].url)).status).toBe(200);
  });

  it('are removed from the bucket when deleted through another origin', async () => {
    const made = await a.call('POST', '/results', { sql: SQL, connection_name: pg, format: 'csv', chunk_rows: 1000 });
    expect(made.body.state).toBe('succeeded');
    expect(await objects(made.body.id)).toHaveLength(3);
    expect((await b.call('DELETE', `/results/${made.body.id}`)).status).toBe(204);
    expect(await objects(made.body.id)).toEqual([]);
    expect((await a.call('GET', `/results/${made.body.id}`)).status).toBe(404);
  });

  it('leave nothing in the bucket when they fail mid-way', async () => {
    const failing = 'SELECT g AS n, 1 / (g - 2500) AS d FROM generate_series(1, 3000) g';
    const made = await a.call('POST', '/results', { sql: failing, connection_name: pg, chunk_rows: 100, wait: 30 });
    expect(made.body).toMatchObject({ state: 'failed', chunks: [], rows: 0 });
    expect(JSON.stringify(made.body.error)).toContain('division by zero');
    expect(await objects(made.body.id)).toEqual([]);
    expect(await s3.listMultipartUploads('results', `kept/${made.body.id}/`)).toEqual([]);
  });

  it('are removed from the bucket once they expire, and then read expired', async () => {
    const made = await a.call('POST', '/results', { sql: SQL, connection_name: pg, chunk_rows: 1000 });
    expect(await objects(made.body.id)).toHaveLength(3);
    await eventually(async () => (await b.call('GET', `/results/${made.body.id}`)).body.state === 'expired', { what: 'the result expired', timeoutMs: 30_000 });
    expect((await b.call('GET', `/results/${made.body.id}`)).body.chunks).toEqual([]);
    expect(await objects(made.body.id)).toEqual([]);
  }, 40_000);

  it('take DuckDB\'s own parquet files as chunks, uploaded from a private folder that is then removed', async () => {
    const duck = await duckFixture('sluice-results-s3-duck-', ['CREATE TABLE big AS SELECT range AS id, md5(range::VARCHAR) AS h FROM range(150000)']);
    try {
      const connection = unique('duck');
      expect((await a.call('POST', '/api/v1/connections', { name: connection, db: 'duckdb', database: duck.file })).status).toBe(201);
      const made = await a.call('POST', '/results', { sql: 'SELECT * FROM big ORDER BY id', connection_name: connection, format: 'parquet', chunk_rows: 100_000 });
      expect(made.body).toMatchObject({ state: 'succeeded', rows: 150_000 });
      expect((await objects(made.body.id)).map((object) => object.key).sort()).toEqual([`kept/${made.body.id}/0.parquet`, `kept/${made.body.id}/1.parquet`]);
      for (const chunk of made.body.chunks) {
        const file = join(duck.dir, `${chunk.index}.parquet`);
        await writeFile(file, Buffer.from(await (await fetch(chunk.url)).arrayBuffer()));
        const [written] = (await duckQuery(`SELECT created_by, num_rows FROM parquet_file_metadata('${file}')`)).rows;
        expect(String(written![0])).toMatch(/duckdb/i);
        expect(Number(written![1])).toBe(chunk.rows);
      }
      expect((await readdir(tmpdir())).filter((name) => name.startsWith('sluice-result-'))).toEqual([]);
    } finally {
      await rm(duck.dir, { recursive: true, force: true });
    }
  });

  it('are refused, saying what to do, on an origin whose SLUICE_RESULT_DESTINATION is not a saved destination', async () => {
    const refused = await b.call('POST', '/results', { sql: SQL, connection_name: pg });
    expect(refused.status).toBe(500);
    expect(refused.body.error).toContain('SLUICE_RESULT_DESTINATION names "not_saved", which is not a saved destination');
  });
});
