import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../api/connections-fixtures.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { ZONE, executeSql, expectQueryError, expectRequestId, rowsOf, startQueryOrigin } from './fixture.ts';

/**
 * The server around the query route: /health, authentication with
 * SLUICE_API_KEY, startup refusing malformed variables, the routes removed
 * before 1.0, and the embedded examples connection.
 */

const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
const API_KEY = 'test-admin-key-0123456789';

/** `+01:00` for a zone now, from Intl rather than a date written into the test. */
function offsetNow(zone: string): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(new Date())
    .find((p) => p.type === 'timeZoneName')!.value;
  return part === 'GMT' ? '+00:00' : part.slice(3);
}

let origin: Origin;
let keyed: Origin;

beforeAll(async () => {
  [origin, keyed] = await Promise.all([
    startQueryOrigin(),
    startOrigin({ env: { TZ: 'Asia/Tokyo', SLUICE_API_KEY: API_KEY } }),
  ]);
});

afterAll(async () => {
  await Promise.all([origin?.stop(), keyed?.stop()]);
});

describe('/health', () => {
  it('answers {status: "ok", version, time_zone, utc_offset} in the server zone', async () => {
    const res = await origin.call('GET', '/health');
    expect(res.status).toBe(200);
    expectRequestId(res.headers);
    expect(res.body).toEqual({ status: 'ok', version: VERSION, time_zone: ZONE, utc_offset: offsetNow(ZONE), store: 'ok' });
    // Paris is one hour ahead in winter, two in summer.
    expect(res.body.utc_offset).toMatch(/^\+0[12]:00$/);
  });

  it('reports another zone with its own offset', async () => {
    const res = await keyed.call('GET', '/health');
    expect(res.body).toEqual({ status: 'ok', version: VERSION, time_zone: 'Asia/Tokyo', utc_offset: '+09:00', store: 'ok' });
  });
});

describe('with SLUICE_API_KEY set', () => {
  const examples = { sql: 'SELECT 1 AS one', connection_name: 'examples' };

  it('keeps /health public, with or without a key', async () => {
    expect((await keyed.call('GET', '/health')).status).toBe(200);
    expect((await keyed.call('GET', '/health', undefined, { 'X-API-Key': 'wrong' })).status).toBe(200);
  });

  it('answers 401 on /execute_sql without the key or with a wrong one, and runs it with the key', async () => {
    expectQueryError(await executeSql(keyed, examples), 401);
    expectQueryError(await executeSql(keyed, examples, {}, { 'X-API-Key': 'wrong' }), 401);
    expectQueryError(await executeSql(keyed, examples, {}, { 'X-API-Key': `${API_KEY}x` }), 401);
    expect(rowsOf(await executeSql(keyed, examples, {}, { 'X-API-Key': API_KEY }))).toEqual([{ one: 1 }]);
  });

  it('checks the key before the body: an unknown connection without a key is 401, not 404', async () => {
    expectQueryError(await executeSql(keyed, { sql: 'SELECT 1', connection_name: 'nope' }), 401);
    expectQueryError(await executeSql(keyed, 'not json'), 401);
  });
});

describe('startup with a malformed variable', () => {
  const MALFORMED: Record<string, string> = {
    SLUICE_PORT: 'abc',
    SLUICE_QUERY_TIMEOUT: '-1',
    SLUICE_MAX_PAGE_SIZE: '0',
    SLUICE_POOL_SIZE: 'x',
    SLUICE_STREAM_MAX_ROWS: '0',
  };

  it('exits non-zero, naming the variable', async () => {
    const folder = await tempDir();
    try {
      const outcomes = await Promise.allSettled(
        Object.entries(MALFORMED).map(([name, value]) =>
          // The process stops before it touches its data dir: none is made.
          startOrigin({ dataDir: join(folder.dir, name), template: false, env: { [name]: value } }),
        ),
      );
      Object.keys(MALFORMED).forEach((name, i) => {
        const outcome = outcomes[i];
        if (outcome.status === 'fulfilled') {
          void outcome.value.stop();
          expect.fail(`${name}=${MALFORMED[name]}: the origin started`);
        }
        const message = String((outcome.reason as Error).message);
        expect(message, name).toMatch(/exited with [1-9]\d* before listening/);
        expect(message, name).toContain(name);
      });
    } finally {
      await folder.remove();
    }
  });
});

describe('routes removed before 1.0', () => {
  it.each([
    ['POST', '/execute_sql_from_file'],
    ['POST', '/execute_sql_with_parameters_from_file'],
    ['GET', '/connections'],
    ['POST', '/connections'],
    ['GET', '/queries'],
    ['POST', '/queries'],
    ['GET', '/keys'],
    ['GET', '/roles'],
    ['GET', '/history'],
    ['GET', '/audit_log'],
    ['GET', '/settings'],
    ['GET', '/cache'],
    ['GET', '/collections'],
    ['GET', '/examples'],
    ['GET', '/files'],
  ])('%s %s answers 404', async (method, path) => {
    const res = await origin.call(method, path, method === 'POST' ? { sql: 'SELECT 1', connection_name: 'examples' } : undefined);
    expect(res.status).toBe(404);
    expect(typeof res.body.error).toBe('string');
    expectRequestId(res.headers);
  });
});

describe('the embedded examples', () => {
  it('answers select * from films limit 3 with three films', async () => {
    const res = await executeSql(origin, { sql: 'select * from films limit 3', connection_name: 'examples' });
    const films = rowsOf(res);
    expect(films).toHaveLength(3);
    for (const film of films) {
      expect(typeof film.title).toBe('string');
      expect(film).toHaveProperty('id');
    }
    expect(res.headers.get('x-has-more')).toBe('false');
  });

  it('lists the examples connection with example: true', async () => {
    const res = await origin.call('GET', '/api/v1/connections');
    expect(res.status).toBe(200);
    const examples = res.body.connections.find((c: { name: string }) => c.name === 'examples');
    expect(examples).toMatchObject({ name: 'examples', db: 'duckdb', example: true, active: true });
  });
});
