import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, apiKey, asAdmin, expectStatus, scopedKey } from '../access/fixtures.ts';
import { type Origin, logsCaughtUp, startOrigin } from '../harness/origin.ts';
import { waitForLog } from '../harness/edge.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { type StoreLink, openStoreLink } from '../harness/store-link.ts';
import { unique } from '../harness/unique.ts';

/**
 * The PostgreSQL store (SLUICE_DATABASE_URL) goes away under a running
 * origin and comes back: meanwhile every request that needs it answers 503
 * `store_unavailable` with Retry-After, whatever its key, /health says so,
 * the log has one line for the outage (no stack per request), and once the
 * store is back requests succeed again.
 */

const DOWN = 'store unreachable';
const BACK = 'store reachable again';

let database: FreshDatabase;
let link: StoreLink;
let origin: Origin;
let good: string;

const countLines = (text: string) => origin.logs.filter((line) => line.includes(text)).length;

async function waitForCount(text: string, count: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (countLines(text) < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} lines with "${text}":\n${origin.logs.join('\n')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The three callers: an unknown key, a good key, the server key on the Management API. */
const calls = () =>
  Promise.all([
  origin.call('GET', '/catalog', undefined, apiKey('sk_unknown_0123456789abcdef')),
  origin.call('POST', '/execute_sql', { sql: 'SELECT 1 AS one', connection_name: 'examples' }, apiKey(good)),
  asAdmin(origin, 'GET', '/api/v1/connections'),
  ]);

async function callsInTurn() {
  const run = await origin.call('POST', '/execute_sql', { sql: 'SELECT 1 AS one', connection_name: 'examples' }, apiKey(good));
  const unknown = await origin.call('GET', '/catalog', undefined, apiKey('sk_unknown_0123456789abcdef'));
  const list = await asAdmin(origin, 'GET', '/api/v1/connections');
  return [run, unknown, list];
}

beforeAll(async () => {
  [database, link] = await Promise.all([freshDatabase(), openStoreLink()]);
  origin = await startOrigin({ template: false, env: { SLUICE_DATABASE_URL: link.url(database.name), SLUICE_API_KEY: ADMIN_KEY } });
  good = await scopedKey(origin, unique('good'));
});

afterAll(async () => {
  await origin?.stop();
  await link?.close();
  await database?.drop();
});

describe('the PostgreSQL store down, then back', () => {
  it('answers while the store is up; /health says so', async () => {
    const [unknown, run, list] = await calls();
    expect(unknown.status).toBe(401);
    expectStatus(run, 200);
    expectStatus(list, 200);
    const health = await origin.call('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', store: 'ok' });
  });

  it('down: 503 store_unavailable with Retry-After for every caller, one line logged, no stack', async () => {
    const before = origin.logs.length;
    await link.cut();
    // Until the origin has seen its listener's connection go, it may still trust the keys it holds (a loaded machine
    // can deliver the reset after the next request); once its first reconnect fails, it says so and reads the store.
    await waitForLog(origin.logs, 'access directory listener down');
    for (let round = 0; round < 3; round++) {
      // In turn: the first request to reach the store finds it gone.
      const [run, unknown, list] = await callsInTurn();
      for (const res of [unknown, run, list]) {
        expect(res.status, JSON.stringify(res.body)).toBe(503);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      expect(unknown.body).toEqual({ error: expect.stringMatching(/store/i), retry_after: 5 });
      expect(list.body).toEqual({ error: expect.stringMatching(/store/i), code: 'store_unavailable', request_id: expect.any(String), retry_after: 5 });
    }
    const health = await origin.call('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'degraded', store: 'unreachable' });
    // Background writers and the directory listener retry every second: still one line each for the outage.
    await new Promise((r) => setTimeout(r, 2_500));
    await logsCaughtUp(origin);
    const since = origin.logs.slice(before);
    expect(countLines(DOWN)).toBe(1);
    for (const background of ['run history not written', 'usage counters not written', 'access directory listener down']) {
      expect(since.filter((line) => line.includes(background)).length, background).toBeLessThanOrEqual(1);
    }
    expect(since.filter((line) => line.includes('unhandled error') || /\n\s+at /.test(line) || /^\s+at /.test(line))).toEqual([]);
  });

  it('back: requests succeed again, one line logged', async () => {
    await link.restore();
    await waitForCount(BACK, 1);
    const [unknown, run, list] = await calls();
    expect(unknown.status).toBe(401);
    expectStatus(run, 200);
    expectStatus(list, 200);
    expect((await origin.call('GET', '/health')).body).toMatchObject({ status: 'ok', store: 'ok' });
    expect(countLines(DOWN)).toBe(1);
    expect(countLines(BACK)).toBe(1);
  });
});
