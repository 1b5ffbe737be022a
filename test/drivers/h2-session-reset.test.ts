import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type Reply, admin, as, makeKey } from '../grants/fixture.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { unique } from '../harness/unique.ts';

/**
 * H2 has no DISCARD: each statement gets a JDBC connection of its own (a new
 * H2 session on the database the helper holds open). With one session kept
 * per connection (SLUICE_POOL_SIZE=1), a caller who may write changes its
 * session (a user variable, the schema, the time zone, a local temporary
 * table, the lock timeout); the next caller finds none of it. H2 lists what a
 * session carries in INFORMATION_SCHEMA.SESSION_STATE.
 */

let origin: Origin;
let h2: string;
let writerKey: string;
let readerKey: string;

beforeAll(async () => {
  origin = await startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_POOL_SIZE: '1', SLUICE_ALLOW_WRITES: '1' } });
  h2 = unique('h2_reset');
  // No DB_CLOSE_DELAY: the in-memory database lives as long as one of its sessions does.
  const res = await admin(origin, 'POST', '/api/v1/connections', { name: h2, db: 'h2', options: { jdbc_url: `jdbc:h2:mem:${h2};DATABASE_TO_LOWER=TRUE` } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  writerKey = (await makeKey(origin, { connections: [h2], allow_writes: true })).secret;
  readerKey = (await makeKey(origin, { connections: [h2] })).secret;
}, 120_000);

afterAll(async () => {
  await origin?.stop();
});

async function run(key: string, sql: string): Promise<Reply> {
  const res = await as(origin, key).sql(h2, sql);
  expect(res.status, `${sql}: ${JSON.stringify(res.body)}`).toBe(200);
  return res;
}

const state = async () =>
  (await run(writerKey, 'SELECT @leak AS leak, CURRENT_SCHEMA AS sch, (SELECT GROUP_CONCAT(STATE_KEY ORDER BY STATE_KEY) FROM INFORMATION_SCHEMA.SESSION_STATE) AS carried')).body[0];

describe('h2 sessions', () => {
  /** What a new session carries: the schema (DATABASE_TO_LOWER names it "public"), nothing else. */
  const clean = { leak: null, sch: 'public', carried: 'SCHEMA' };

  it('a user variable set by one caller is NULL for the next', async () => {
    expect(await state()).toEqual(clean);
    expect((await run(writerKey, "SELECT SET(@leak, 'A') AS v")).body).toEqual([{ v: 'A' }]);
    expect(await state()).toEqual(clean);
    // A caller who may not write cannot even ask: the guard refuses @variables there.
    expect((await as(origin, readerKey).sql(h2, 'SELECT @leak AS leak')).status).toBe(403);
  });

  it("a writer's settings, schema and temporary table do not reach the next caller", async () => {
    await run(writerKey, 'CREATE SCHEMA IF NOT EXISTS other');
    for (const sql of [
      "SET @leak = 'w'",
      'SET SCHEMA other',
      "SET TIME ZONE '+05:00'",
      'SET LOCK_TIMEOUT 1234',
      'CREATE LOCAL TEMPORARY TABLE leak (a int)',
    ]) {
      await run(writerKey, sql);
      expect(await state(), sql).toEqual(clean);
    }
  });

  it('what a writer commits stays: the database outlives the sessions', async () => {
    await run(writerKey, 'CREATE TABLE kept (a int)');
    await run(writerKey, 'INSERT INTO kept VALUES (7)');
    expect((await run(readerKey, 'SELECT a FROM kept')).body).toEqual([{ a: 7 }]);
  });
});
