import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteExec, tempDir } from '../api/connections-fixtures.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { createQuery, getQ, requestIdOf, waitForRun } from '../q/fixture.ts';
import { expectFresh, expectUncached } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/** A saved write never goes through the cache, even with cache_ttl set and writes allowed. */

let origin: Origin;
let dir: Awaited<ReturnType<typeof tempDir>>;
let conn: string;

beforeAll(async () => {
  dir = await tempDir();
  const file = `${dir.dir}/written.sqlite`;
  sqliteExec(file, 'CREATE TABLE written (id INTEGER)');
  origin = await startOrigin({ env: { SLUICE_ALLOW_WRITES: '1' } });
  conn = unique('writes');
  const made = await origin.call('POST', '/api/v1/connections', { name: conn, db: 'sqlite', database: file });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
});

afterAll(async () => {
  await origin?.stop();
  await dir?.remove();
});

const count = async () => {
  const res = await origin.call('POST', '/execute_sql', { sql: 'SELECT count(*) AS n FROM written', connection_name: conn });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body[0].n;
};

describe('SLUICE_ALLOW_WRITES=1', () => {
  it('runs a saved write with cache_ttl every time, with no caching headers', async () => {
    const name = await createQuery(origin, { sql: 'INSERT INTO written VALUES (:id)', parameters: { id: 'integer' }, connection_name: conn, cache_ttl: 300 }, 'insert');
    for (let i = 0; i < 3; i++) {
      const res = await getQ(origin, name, { id: 1 });
      expect(res.status, res.text).toBe(200);
      expectUncached(res);
      await waitForRun(origin, requestIdOf(res));
    }
    expect(await count()).toBe(3);
    const entries = await origin.call('GET', '/api/v1/cache/entries');
    expect(entries.body.entries.filter((e: { meta: { query: string } }) => e.meta.query === name)).toEqual([]);
  });

  it('still caches a saved read on the same server', async () => {
    const name = await createQuery(origin, { sql: 'SELECT count(*) AS n FROM written', connection_name: conn, cache_ttl: 300 }, 'read');
    expectFresh(await getQ(origin, name), 300);
    expect((await getQ(origin, name)).headers.get('x-cache')).toBe('HIT');
  });
});
