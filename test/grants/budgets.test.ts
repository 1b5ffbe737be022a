import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { unique } from '../harness/unique.ts';
import { type TestDb, createTestDb } from '../query/fixture.ts';
import { ADMIN_KEY, type Reply, admin, as } from './fixture.ts';

/**
 * Budgets (docs/reference/budgets.md): a key's `max_estimated_rows` refused
 * from the planner's estimate before anything runs, and its rows and
 * database seconds per day counted in the store every origin shares, then
 * refused with 429 `budget_exhausted` until the server zone's midnight.
 */

const ROWS = 1_000_000;
const ZONE = 'Europe/Paris';
let store: FreshDatabase;
let folder: string;
let db: TestDb;
let a: Origin;
let b: Origin;
let pg: string;

beforeAll(async () => {
  [store, folder] = await Promise.all([freshDatabase(), mkdtemp(join(tmpdir(), 'sluice-budgets-'))]);
  db = await createTestDb('postgres', folder);
  await db.exec(`CREATE TABLE big AS SELECT g AS id, md5(g::text) AS h FROM generate_series(1, ${ROWS}) g`, 'ALTER TABLE big ADD PRIMARY KEY (id)', 'ANALYZE big');
  const env = { SLUICE_DATABASE_URL: store.url, SLUICE_API_KEY: ADMIN_KEY, TZ: ZONE };
  [a, b] = await Promise.all([
    startOrigin({ dataDir: join(folder, 'a'), template: false, env }),
    startOrigin({ dataDir: join(folder, 'b'), template: false, env }),
  ]);
  pg = unique('pg');
  const res = await admin(a, 'POST', '/api/v1/connections', { name: pg, ...db.fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}, 120_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await db?.drop();
  await store?.drop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

async function budgetKey(budget: Record<string, unknown>): Promise<{ name: string; secret: string }> {
  const name = unique('budget');
  const res = await admin(a, 'POST', '/api/v1/api-keys', { name, connections: [pg], budget });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { name, secret: res.body.secret };
}

const run = (origin: Origin, secret: string, sql: string, query = ''): Promise<Reply> => as(origin, secret).sql(pg, sql, query);

/** The rows left as an origin counts them now (a run's count is written just after its answer): a dry run spends nothing. */
const rowsLeft = async (origin: Origin, secret: string) => (await run(origin, secret, 'select 1', '?dry_run=true')).headers.get('x-budget-rows-remaining');

/** Seconds from the server zone's midnight to `at` (or from `at` to it, whichever is nearer). */
function fromMidnight(at: Date): number {
  const [h, m, s] = new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
    .format(at)
    .split(':')
    .map(Number);
  const ofDay = h! * 3600 + m! * 60 + s!;
  return Math.min(ofDay, 86_400 - ofDay);
}

describe('max_estimated_rows', () => {
  it('refuses a full scan of a 1M-row table from the planner estimate, before anything runs; a keyed lookup passes', async () => {
    const key = await budgetKey({ max_estimated_rows: 10_000 });
    const scan = await run(a, key.secret, 'select * from big', '?stream=true&format=ndjson');
    expect(scan.status, JSON.stringify(scan.body)).toBe(403);
    expect(scan.body).toMatchObject({ code: 'estimate_too_large', limit: 10_000, estimate: { source: 'planner', cost: expect.any(Number) } });
    expect(scan.body.estimate.rows).toBeGreaterThan(ROWS / 2);
    expect(scan.body.error).toMatch(/max_estimated_rows \(10000\)/);

    const lookup = await run(a, key.secret, 'select * from big where id = 5');
    expect(lookup.status, JSON.stringify(lookup.body)).toBe(200);
    expect(lookup.body).toEqual([{ id: 5, h: expect.any(String) }]);

    // Nothing ran for the refusal: the key's history (written in order) holds the lookup only.
    const history = async () => (await admin(a, 'GET', `/api/v1/history?key=${encodeURIComponent(key.name)}`)).body.items;
    await expect.poll(history).toHaveLength(1);
    expect((await history())[0]).toMatchObject({ status: 'success', rows: 1 });
  });

  it('is what a dry run names in would_refuse, with the estimate, without refusing the dry run', async () => {
    const key = await budgetKey({ max_estimated_rows: 10_000 });
    const dry = await run(a, key.secret, 'select * from big', '?dry_run=true&stream=true&format=ndjson');
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.would_refuse).toEqual({ code: 'estimate_too_large', error: expect.stringMatching(/max_estimated_rows/) });
    const fine = await run(a, key.secret, 'select * from big where id < 100', '?dry_run=true');
    expect(fine.body.would_refuse).toBeNull();
  });
});

describe('rows_per_day', () => {
  it('lets runs through until the day\'s rows are spent across two origins, then answers 429 until midnight', async () => {
    const key = await budgetKey({ rows_per_day: 1000 });
    const page = 'select * from big where id <= 400';
    const first = await run(a, key.secret, page, '?page_size=1000');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers.get('x-budget-rows-remaining')).toBe('1000');
    expect(first.headers.get('x-budget-seconds-remaining')).toBeNull();
    await expect.poll(() => rowsLeft(b, key.secret)).toBe('600');
    const second = await run(b, key.secret, page, '?page_size=1000');
    expect(second.headers.get('x-budget-rows-remaining')).toBe('600');
    // A run that starts under budget is never cut: it may pass the day's limit.
    await expect.poll(() => rowsLeft(a, key.secret)).toBe('200');
    const third = await run(a, key.secret, page, '?page_size=1000');
    expect(third.status).toBe(200);
    expect(third.headers.get('x-budget-rows-remaining')).toBe('200');
    expect(third.body).toHaveLength(400);

    await expect.poll(() => rowsLeft(b, key.secret)).toBe('0');
    const refused = await run(b, key.secret, page);
    expect(refused.status, JSON.stringify(refused.body)).toBe(429);
    expect(refused.body).toEqual({
      error: expect.stringMatching(/rows_per_day budget is spent for today \(1200 of 1000\)/),
      code: 'budget_exhausted',
      budget: 'rows_per_day',
      spent: 1200,
      limit: 1000,
      retry_after: expect.any(Number),
    });
    expect(refused.headers.get('retry-after')).toBe(String(refused.body.retry_after));
    expect(refused.headers.get('x-budget-rows-remaining')).toBe('0');
    expect(refused.body.retry_after).toBeLessThanOrEqual(25 * 3600);
    expect(fromMidnight(new Date(Date.now() + refused.body.retry_after * 1000))).toBeLessThan(5);
    expect((await run(a, key.secret, 'select 1')).status).toBe(429);
    const stored = await as(b, key.secret).call('POST', '/results', { sql: 'select 1', connection_name: pg });
    expect(stored.status, JSON.stringify(stored.body)).toBe(429);
    expect(stored.body).toMatchObject({ code: 'budget_exhausted', budget: 'rows_per_day' });

    // A dry run still answers, naming the refusal; the spent key's usage shows it.
    const dry = await run(a, key.secret, page, '?dry_run=true');
    expect(dry.status).toBe(200);
    expect(dry.body.would_refuse).toMatchObject({ code: 'budget_exhausted' });
    const read = await admin(b, 'GET', `/api/v1/api-keys/${key.name}`);
    expect(read.body.budget).toEqual({ max_estimated_rows: null, rows_per_day: 1000, db_seconds_per_day: null });
    expect(read.body.effective_limits.budget).toEqual(read.body.budget);
    expect(read.body.usage_this_period).toMatchObject({ period: 'day', rows: 1200, budget_remaining: { rows: 0, db_seconds: null } });
    const quotas = await admin(b, 'GET', '/api/v1/usage/quotas');
    const entry = quotas.body.callers.find((c: { name: string }) => c.name === key.name);
    expect(entry).toMatchObject({ day: { rows: 1200 }, budget: read.body.budget, budget_remaining: { rows: 0, db_seconds: null } });
    expect(entry.day.db_seconds).toBeGreaterThan(0);
  });

  it('counts a stream\'s rows once its download ends', async () => {
    const key = await budgetKey({ rows_per_day: 500 });
    const stream = await run(a, key.secret, 'select * from big where id <= 600', '?stream=true&format=ndjson');
    expect(stream.status).toBe(200);
    expect(stream.headers.get('x-budget-rows-remaining')).toBe('500');
    await expect.poll(async () => (await run(b, key.secret, 'select 1')).status).toBe(429);
  });
});

describe('db_seconds_per_day', () => {
  it('refuses the third or fourth one-second sleep of a 2-second day', async () => {
    const key = await budgetKey({ db_seconds_per_day: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await run(a, key.secret, 'select pg_sleep(1)');
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.body).toMatchObject({ code: 'budget_exhausted', budget: 'db_seconds_per_day', limit: 2 });
        expect(res.body.spent).toBeGreaterThanOrEqual(2);
        expect(res.headers.get('x-budget-seconds-remaining')).toBe('0');
      } else if (i > 0) {
        expect(Number(res.headers.get('x-budget-seconds-remaining'))).toBeLessThan(2);
      }
    }
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses.indexOf(429)).toBeGreaterThanOrEqual(2);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe('a budget', () => {
  it('is shown in the catalog\'s caller and refused when malformed', async () => {
    const key = await budgetKey({ max_estimated_rows: 5, db_seconds_per_day: 30 });
    const catalog = await as(a, key.secret).get('/catalog');
    expect(catalog.body.caller.budget).toEqual({ max_estimated_rows: 5, rows_per_day: null, db_seconds_per_day: 30 });
    const bad = await admin(a, 'POST', '/api/v1/api-keys', { name: unique('budget'), budget: { rows_per_day: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_request');
  });

  it('leaves a key without one as it was: no budget headers, no refusal', async () => {
    const name = unique('plain');
    const made = await admin(a, 'POST', '/api/v1/api-keys', { name, connections: [pg] });
    const res = await run(a, made.body.secret, 'select * from big');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-budget-rows-remaining')).toBeNull();
  });
});
