import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { unique } from '../harness/unique.ts';
import { type TestDb, addConnection, createTestDb } from '../query/fixture.ts';

/**
 * What happens to stored results over time, on an origin whose store is
 * PostgreSQL (so a restarted origin finds them): links expire (410), more
 * results than SLUICE_RESULTS_MAX_RUNNING wait `queued`, and a result whose
 * origin was killed mid-way reads `failed` after a restart, its partial
 * chunks gone.
 */

const ENV = { SLUICE_RESULT_LINK_TTL: '2', SLUICE_RESULT_LEASE: '3', SLUICE_RESULTS_MAX_RUNNING: '1' };

let store: FreshDatabase;
let dataDir: string;
let origin: Origin;
let db: TestDb;
let pg: string;

const start = () => startOrigin({ dataDir, env: { SLUICE_DATABASE_URL: store.url, ...ENV } });

beforeAll(async () => {
  store = await freshDatabase();
  dataDir = await mkdtemp(join(tmpdir(), 'sluice-results-life-'));
  origin = await start();
  db = await createTestDb('postgres', dataDir);
  await db.exec('CREATE TABLE t AS SELECT g AS n FROM generate_series(1, 10) g');
  pg = await addConnection(origin, db);
});

afterAll(async () => {
  await origin?.stop();
  await db?.drop();
  await store?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const slowSql = (tag: string, seconds: number) => `SELECT g AS n, pg_sleep(CASE WHEN g = 2 THEN ${seconds} ELSE 0 END) AS ${tag} FROM generate_series(1, 3) g`;
const running = async (tag: string) =>
  Number((await db.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE $1 AND state <> 'idle' AND pid <> pg_backend_pid()", [`%${tag}%`]))[0]!.n);

describe('stored results over time', () => {
  it('answer a link past its expiry with 410 link_expired', async () => {
    const res = await origin.call('POST', '/results', { sql: 'SELECT n FROM t', connection_name: pg, format: 'csv' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const url = res.body.chunks[0].url;
    expect((await fetch(url)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 3_200));
    const late = await fetch(url);
    expect(late.status).toBe(410);
    expect((await late.json()).code).toBe('link_expired');
    const fresh = await origin.call('GET', `/results/${res.body.id}`);
    expect((await fetch(fresh.body.chunks[0].url)).status).toBe(200);
  });

  it('wait queued past SLUICE_RESULTS_MAX_RUNNING, then run in order', async () => {
    const tag = unique('result_first');
    const first = await origin.call('POST', '/results', { sql: slowSql(tag, 3), connection_name: pg, wait: 0 });
    expect(first.body.state).toBe('running');
    const second = await origin.call('POST', '/results', { sql: 'SELECT n FROM t', connection_name: pg, wait: 0 });
    expect(second.status).toBe(202);
    expect(second.body.state).toBe('queued');
    const done = await origin.call('POST', '/results', { sql: 'SELECT 1 AS one', connection_name: pg, wait: 30 });
    expect(done.body.state).toBe('succeeded');
    expect((await origin.call('GET', `/results/${first.body.id}`)).body.state).toBe('succeeded');
    expect((await origin.call('GET', `/results/${second.body.id}`)).body).toMatchObject({ state: 'succeeded', rows: 10 });
  });

  it('read failed after their origin was killed mid-way and restarted, with no partial chunk left', async () => {
    const tag = unique('result_killed');
    const started = await origin.call('POST', '/results', { sql: `SELECT g AS n, repeat('x', 200) AS ${tag} FROM (SELECT generate_series(1, 100000000) AS g) s`, connection_name: pg, chunk_rows: 10_000, wait: 0 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    await eventually(async () => (await origin.call('GET', `/results/${started.body.id}`)).body.chunks.length >= 1, { what: 'a chunk written', timeoutMs: 20_000 });
    const folder = join(dataDir, 'results', started.body.id);
    expect(await readdir(folder)).toContain('0.ndjson');
    origin.process.kill('SIGKILL');
    await new Promise((resolve) => origin.process.once('exit', resolve));
    await db.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()', [`%${tag}%`]);
    origin = await start();
    const after = await origin.call('GET', `/results/${started.body.id}`);
    // Within the lease it may still read running; never past it.
    await eventually(async () => (await origin.call('GET', `/results/${started.body.id}`)).body.state === 'failed', { what: 'the result failed', timeoutMs: 10_000 });
    expect(['running', 'failed']).toContain(after.body.state);
    const failed = (await origin.call('GET', `/results/${started.body.id}`)).body;
    expect(failed).toMatchObject({ state: 'failed', chunks: [], error: { error: 'origin stopped while the result was written' } });
    await eventually(async () => !existsSync(folder), { what: 'its chunks removed', timeoutMs: 20_000 });
    expect(await running(tag)).toBe(0);
  }, 60_000);
});

describe('the key that signs chunk links', () => {
  it('is made once per store, kept encrypted under SLUICE_SECRET_KEY, and signs every origin\'s links to the origin holding the chunks; rekeyed, its links still hold', async () => {
    const keyed = await freshDatabase();
    const folder = await mkdtemp(join(tmpdir(), 'sluice-results-key-'));
    const oldKey = randomBytes(32).toString('hex');
    const env = { SLUICE_DATABASE_URL: keyed.url, SLUICE_SECRET_KEY: oldKey };
    const raw = postgres(keyed.url, { max: 1, onnotice: () => {} });
    let first = await startOrigin({ dataDir: join(folder, 'a'), template: false, env });
    const second = await startOrigin({ dataDir: join(folder, 'b'), template: false, env });
    try {
      const connection = unique('pg');
      expect((await first.call('POST', '/api/v1/connections', { name: connection, ...db.fields })).status).toBe(201);
      const made = await first.call('POST', '/results', { sql: 'SELECT n FROM t', connection_name: connection });
      expect(made.body.state).toBe('succeeded');
      const stored = await raw`select value from server_secrets where name = 'result_links'`;
      expect(stored).toHaveLength(1);
      expect(stored[0]!.value).toMatch(/^enc:v1:/);
      // Asked of the second origin, the links point at the first, which holds the chunks, signed with the same key.
      const relinked = await second.call('GET', `/results/${made.body.id}`);
      const link = new URL(relinked.body.chunks[0].url);
      expect(link.origin).toBe(first.url);
      const res = await fetch(link);
      expect(res.status).toBe(200);
      expect((await res.text()).trim().split('\n')).toHaveLength(10);

      // Rekeyed under a new first key, then read with the new key alone: the links signed before still hold.
      const newKey = randomBytes(32).toString('hex');
      await Promise.all([first.stop(), second.stop()]);
      const rotating = await startOrigin({ dataDir: join(folder, 'c'), template: false, env: { ...env, SLUICE_SECRET_KEY: `${newKey},${oldKey}` } });
      const rekeyed = await rotating.call('POST', '/api/v1/settings/rekey', {});
      await rotating.stop();
      expect(rekeyed.status, JSON.stringify(rekeyed.body)).toBe(200);
      expect(rekeyed.body.rekeyed).toBeGreaterThanOrEqual(1);
      const [moved] = await raw`select value from server_secrets where name = 'result_links'`;
      expect(moved!.value.split(':')[2]).not.toBe(stored[0]!.value.split(':')[2]);
      first = await startOrigin({ dataDir: join(folder, 'a'), template: false, env: { ...env, SLUICE_SECRET_KEY: newKey } });
      expect((await fetch(new URL(`${link.pathname}${link.search}`, first.url))).status).toBe(200);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
      await raw.end({ timeout: 5 });
      await keyed.drop();
      await rm(folder, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('what a result may keep', () => {
  let small: Origin;
  beforeAll(async () => {
    small = await startOrigin({ env: { SLUICE_RESULT_TTL: '10', SLUICE_RESULT_MAX_BYTES: String(2 ** 20), SLUICE_RESULT_LEASE: '3' } });
  });
  afterAll(async () => {
    await small?.stop();
  });

  it('fails a result that would pass SLUICE_RESULT_MAX_BYTES, naming it, its chunks removed; a finished one expires after SLUICE_RESULT_TTL', async () => {
    const connection = await addConnection(small, db);
    const big = await small.call('POST', '/results', { sql: `SELECT g AS n, repeat('x', 100) AS pad FROM (SELECT generate_series(1, 100000) AS g) s`, connection_name: connection, chunk_rows: 1000, wait: 30 });
    expect(big.body).toMatchObject({ state: 'failed', chunks: [], rows: 0 });
    expect(big.body.error.error).toContain('SLUICE_RESULT_MAX_BYTES');
    expect(existsSync(join(small.dataDir, 'results', big.body.id))).toBe(false);
    const kept = await small.call('POST', '/results', { sql: 'SELECT n FROM t', connection_name: connection });
    expect(kept.body.state).toBe('succeeded');
    const folder = join(small.dataDir, 'results', kept.body.id);
    expect(existsSync(folder)).toBe(true);
    await eventually(async () => (await small.call('GET', `/results/${kept.body.id}`)).body.state === 'expired', { what: 'the result expired', timeoutMs: 25_000 });
    expect((await small.call('GET', `/results/${kept.body.id}`)).body.chunks).toEqual([]);
    await eventually(async () => !existsSync(folder), { what: 'its chunks removed', timeoutMs: 10_000 });
  }, 60_000);
});
