import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GrantsEnv, admin, as, makeKey, saveQuery, startGrantsOrigin } from '../grants/fixture.ts';
import { unique } from '../harness/unique.ts';
import { type TestDb, createTestDb } from './fixture.ts';

/**
 * Dry runs (`dry_run=true`, docs/reference/budgets.md): every check a run
 * makes, then the engine's planner instead of the statement. Nothing runs,
 * nothing is recorded, cached or counted; a refusal is the run's own.
 */

const ROWS = 1_000_000;
let env: GrantsEnv;
let folder: string;
let my: TestDb;
let duck: TestDb;
let lite: TestDb;
const names: Record<string, string> = {};

const within2x = (estimate: number, actual: number) => estimate >= actual / 2 && estimate <= actual * 2;

beforeAll(async () => {
  env = await startGrantsOrigin({ SLUICE_ALLOW_WRITES: '1' });
  folder = await mkdtemp(join(tmpdir(), 'sluice-dry-'));
  await env.db.exec(`CREATE TABLE big AS SELECT g AS id, md5(g::text) AS h FROM generate_series(1, ${ROWS}) g`, 'ALTER TABLE big ADD PRIMARY KEY (id)', 'ANALYZE big');
  [my, duck, lite] = await Promise.all([createTestDb('mysql', folder), createTestDb('duckdb', folder), createTestDb('sqlite', folder)]);
  await my.exec('CREATE TABLE big (id INT PRIMARY KEY, h CHAR(32))', `INSERT INTO big SELECT seq, md5(seq) FROM seq_1_to_${ROWS}`, 'ANALYZE TABLE big');
  await duck.exec(`CREATE TABLE big AS SELECT range AS id, md5(range::VARCHAR) AS h FROM range(${ROWS})`);
  await lite.exec('CREATE TABLE big (id INTEGER PRIMARY KEY, h TEXT)', "INSERT INTO big VALUES (1, 'a'), (2, 'b')");
  for (const [kind, db] of [['my', my], ['duck', duck], ['lite', lite]] as const) {
    names[kind] = unique(kind);
    const res = await admin(env.origin, 'POST', '/api/v1/connections', { name: names[kind], ...db.fields });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await env?.stop();
  await Promise.all([my?.drop(), duck?.drop(), lite?.drop()]);
  if (folder) await rm(folder, { recursive: true, force: true });
});

const dry = (body: Record<string, unknown>) => admin(env.origin, 'POST', '/execute_sql?dry_run=true', body);

describe('a dry run', () => {
  it('estimates from PostgreSQL\'s planner: a range within 2x of its rows, a full scan within 2x of the table', async () => {
    const range = await dry({ sql: 'select * from big where id < 1000', connection_name: env.pg, page_size: 1000 });
    expect(range.status, JSON.stringify(range.body)).toBe(200);
    expect(range.body).toMatchObject({ dry_run: true, connection: env.pg, dialect: 'postgres', statement_type: 'SELECT', tables: ['big'], parameters: {}, estimate: { source: 'planner' }, would_refuse: null });
    expect(within2x(range.body.estimate.rows, 999)).toBe(true);
    expect(range.body.estimate.cost).toBeGreaterThan(0);
    const scan = await admin(env.origin, 'POST', '/execute_sql?dry_run=true&stream=true&format=ndjson', { sql: 'select * from big', connection_name: env.pg });
    expect(within2x(scan.body.estimate.rows, ROWS)).toBe(true);
  });

  it('caps the estimate at the page the run would read', async () => {
    const paged = await dry({ sql: 'select * from big', connection_name: env.pg, page_size: 10 });
    expect(paged.body.estimate.rows).toBeLessThanOrEqual(10);
  });

  it('estimates DuckDB\'s and MariaDB\'s full scans within 2x; SQLite has none to give', async () => {
    for (const name of [names.duck!, names.my!]) {
      const scan = await admin(env.origin, 'POST', '/execute_sql?dry_run=true&stream=true&format=ndjson', { sql: 'select * from big', connection_name: name });
      expect(scan.status, JSON.stringify(scan.body)).toBe(200);
      expect(scan.body.estimate.source).toBe('planner');
      expect(within2x(scan.body.estimate.rows, ROWS), `${name}: ${JSON.stringify(scan.body.estimate)}`).toBe(true);
      // MySQL's and MariaDB's plans leave LIMIT out of their row figures: the statement's own window caps them.
      const limited = await admin(env.origin, 'POST', '/execute_sql?dry_run=true&stream=true&format=ndjson', { sql: 'select * from big limit :n', params: { n: 10 }, connection_name: name });
      expect(limited.body.estimate.rows, name).toBeLessThanOrEqual(10);
    }
    const lite = await dry({ sql: 'select * from big', connection_name: names.lite });
    expect(lite.body).toMatchObject({ dialect: 'sqlite', estimate: { rows: null, cost: null, source: 'none' } });
  });

  it('runs nothing: pg_sleep(5) answers at once, an insert leaves the table as it was, and history has neither', async () => {
    const before = (await admin(env.origin, 'GET', '/api/v1/history?limit=1')).body;
    const started = Date.now();
    const sleep = await dry({ sql: 'select pg_sleep(5)', connection_name: env.pg });
    expect(sleep.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000);
    const insert = await dry({ sql: "insert into notes (note) values ('dry')", connection_name: env.pg });
    expect(insert.body).toMatchObject({ statement_type: 'INSERT', tables: ['notes'] });
    expect(await env.db.query('select count(*)::int as n from notes')).toEqual([{ n: 0 }]);
    const after = (await admin(env.origin, 'GET', '/api/v1/history?limit=1')).body;
    expect(after.total).toBe(before.total);
  });

  it('of POST /results stores nothing: no result, no history', async () => {
    const before = (await admin(env.origin, 'GET', '/api/v1/history?limit=1')).body;
    for (const [path, body] of [
      ['/results', { sql: 'select * from big', connection_name: env.pg, dry_run: true }],
      ['/results?dry_run=true', { sql: 'select * from big', connection_name: env.pg, format: 'parquet' }],
    ] as const) {
      const res = await admin(env.origin, 'POST', path, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ dry_run: true, statement_type: 'SELECT', tables: ['big'], estimate: { source: 'planner' } });
      expect(within2x(res.body.estimate.rows, ROWS)).toBe(true);
      expect(res.body.id).toBeUndefined();
    }
    expect((await admin(env.origin, 'POST', '/results', { sql: 'select 1', connection_name: env.pg, dry_run: 'yes' })).status).toBe(400);
    expect((await admin(env.origin, 'GET', '/api/v1/history?limit=1')).body.total).toBe(before.total);
  });

  it('refuses exactly what the run refuses', async () => {
    const query = unique('dry_q');
    await saveQuery(env.origin, query, { connection_name: env.pg, sql: 'select id from big where id = :id', parameters: { id: 'integer' } });
    const limited = await makeKey(env.origin, { queries: [query], connections: [env.pg], allowed_tables: ['films'] });
    const caller = as(env.origin, limited.secret);
    const pairs: Array<[string, string, Record<string, unknown> | undefined]> = [
      ['GET', `/q/${query}?id=abc`, undefined],
      ['POST', '/execute_sql', { sql: 'select * from secrets', connection_name: env.pg }],
      ['POST', '/execute_sql', { sql: 'delete from films', connection_name: env.pg }],
      ['POST', '/execute_sql', { sql: 'select 1', connection_name: 'no_such_connection' }],
    ];
    for (const [method, path, body] of pairs) {
      const ran = await caller.call(method, path, body);
      const dried = await caller.call(method, `${path}${path.includes('?') ? '&' : '?'}dry_run=true`, body);
      expect(ran.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect({ status: dried.status, code: dried.body.code, error: dried.body.error }).toEqual({ status: ran.status, code: ran.body.code, error: ran.body.error });
    }
  });

  it('on a saved query shows its bound parameters, is never cached, and is counted in sluice_dry_runs_total', async () => {
    const query = unique('dry_cached');
    await saveQuery(env.origin, query, { connection_name: env.pg, sql: 'select id, h from big where id = :id', parameters: { id: { type: 'integer', default: 7 } }, cache_ttl: 60 });
    const first = await admin(env.origin, 'GET', `/q/${query}?dry_run=true`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ dry_run: true, parameters: { id: 7 }, estimate: { source: 'planner' } });
    expect(first.body.estimate.rows).toBeLessThanOrEqual(1);
    const ran = await admin(env.origin, 'GET', `/q/${query}`);
    expect(ran.body).toEqual([{ id: 7, h: expect.any(String) }]);
    const again = await admin(env.origin, 'GET', `/q/${query}?dry_run=true`);
    expect(again.body.dry_run).toBe(true);
    const metrics = await (await env.origin.fetch('/metrics', { headers: { 'x-api-key': 'grants-admin-key-0123456789' } })).text();
    const counted = metrics.split('\n').filter((line) => line.startsWith('sluice_dry_runs_total{') && line.includes(`connection="${env.pg}"`));
    expect(counted.reduce((sum, line) => sum + Number(line.split(' ').pop()), 0)).toBeGreaterThanOrEqual(2);
  });
});
