import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../api/connections-fixtures.ts';
import { ADMIN_KEY, admin } from '../grants/fixture.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type TestDb, createTestDb } from '../query/fixture.ts';
import { unique } from '../harness/unique.ts';
import { eventually } from '../harness/eventually.ts';

/**
 * SLUICE_POOL_MAX: a connection setting has at most that many sessions open,
 * busy and idle. Statements past it wait for the next session released, so a
 * burst of concurrent requests runs on the same backends; a wait counts
 * against the statement's time limit.
 */

let origin: Origin;
let folder: Awaited<ReturnType<typeof tempDir>>;
let pg: TestDb;
let connection: string;

beforeAll(async () => {
  folder = await tempDir();
  [origin, pg] = await Promise.all([
    startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_POOL_SIZE: '1', SLUICE_POOL_MAX: '2' } }),
    createTestDb('postgres', folder.dir),
  ]);
  connection = unique('pool_max');
  const res = await admin(origin, 'POST', '/api/v1/connections', { name: connection, ...pg.fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
});

afterAll(async () => {
  await origin?.stop();
  await pg?.drop();
  await folder?.remove();
});

const run = (sql: string, extra: Record<string, unknown> = {}) => admin(origin, 'POST', '/execute_sql', { sql, connection_name: connection, ...extra });

describe('SLUICE_POOL_MAX', () => {
  it('runs twelve concurrent statements on at most two backends, every one answered', async () => {
    const replies = await Promise.all(Array.from({ length: 12 }, () => run('select pg_backend_pid() as pid from pg_sleep(0.1)')));
    for (const reply of replies) expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const backends = new Set(replies.map((reply) => reply.body[0].pid));
    expect(backends.size).toBeLessThanOrEqual(2);
  });

  it('answers 504 timeout to a statement whose time limit passes while it waits its turn; those running end as usual', async () => {
    const slow = [run('select 1 as one from pg_sleep(3)'), run('select 1 as one from pg_sleep(3)')];
    // Both sessions are taken once the database shows both statements running (asked through its own client).
    await eventually(async () => {
      const [row] = await pg.query("select count(*)::int as n from pg_stat_activity where query like '%select 1 as one from pg_sleep(3)%' and state = 'active' and pid <> pg_backend_pid()");
      return row.n === 2;
    }, { what: 'both slow statements running' });
    const waited = await run('select 2 as two', { timeout: 0.5 });
    expect(waited.status, JSON.stringify(waited.body)).toBe(504);
    expect(waited.body).toMatchObject({ error: 'Query exceeded the time limit and was cancelled', timeout: 0.5 });
    for (const reply of await Promise.all(slow)) expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect((await run('select 3 as three')).status).toBe(200);
  });
});
