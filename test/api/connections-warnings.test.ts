import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { MY, PG, myExec, pgExec, unique } from './connections-fixtures.ts';

/**
 * `POST /api/v1/connections/test` warns about a user that can reach the
 * database server's files or state: the local `postgres` is a superuser,
 * MariaDB's root has FILE and SUPER. Least-privilege users made here (and
 * dropped after) get no warning.
 */

const API = '/api/v1/connections/test';
const pgPlain = unique('sluice_lp');
const pgFiles = unique('sluice_rf');
const myPlain = unique('sluice_lp');
const myFile = unique('sluice_fp');

let origin: Origin;

beforeAll(async () => {
  await pgExec(`CREATE ROLE ${pgPlain} LOGIN`, `CREATE ROLE ${pgFiles} LOGIN IN ROLE pg_read_server_files`);
  await myExec(
    `CREATE USER '${myPlain}'@'%'`,
    `GRANT SELECT ON ${MY.database}.* TO '${myPlain}'@'%'`,
    `CREATE USER '${myFile}'@'%'`,
    `GRANT SELECT ON ${MY.database}.* TO '${myFile}'@'%'`,
    `GRANT FILE ON *.* TO '${myFile}'@'%'`,
  );
  origin = await startOrigin();
});

afterAll(async () => {
  await origin?.stop();
  await pgExec(`DROP ROLE IF EXISTS ${pgFiles}`, `DROP ROLE IF EXISTS ${pgPlain}`).catch(() => {});
  await myExec(`DROP USER IF EXISTS '${myPlain}'@'%'`, `DROP USER IF EXISTS '${myFile}'@'%'`).catch(() => {});
});

const pg = (user: string) => ({ db: 'postgres', host: PG.host, port: PG.port, user, database: PG.database });
const my = (user: string) => ({ db: 'mysql', host: MY.host, port: MY.port, user, database: MY.database });

async function warnings(body: Record<string, unknown>): Promise<string[]> {
  const res = await origin.call('POST', API, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toMatchObject({ ok: true, duration_ms: expect.any(Number) });
  return res.body.warnings;
}

describe('connection test warnings', () => {
  it('warns about a PostgreSQL superuser, once', async () => {
    const found = await warnings(pg(PG.user));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^The user is a superuser: .*only the privileges its queries need/);
  });

  it('warns about membership of pg_read_server_files', async () => {
    const found = await warnings(pg(pgFiles));
    expect(found).toEqual([expect.stringContaining('member of pg_read_server_files')]);
  });

  it('warns about MariaDB FILE and SUPER, and a saved connection is checked the same way', async () => {
    const found = await warnings(my(MY.user));
    expect(found).toEqual([expect.stringContaining('the FILE privilege'), expect.stringContaining('the SUPER privilege')]);
    const name = unique('warned');
    expect((await origin.call('POST', '/api/v1/connections', { name, ...my(myFile) })).status).toBe(201);
    expect(await warnings({ name })).toEqual([expect.stringContaining('the FILE privilege')]);
  });

  it('has no warning for least-privilege users, nor for databases without users', async () => {
    expect(await warnings(pg(pgPlain))).toEqual([]);
    expect(await warnings(my(myPlain))).toEqual([]);
    expect(await warnings({ db: 'duckdb' })).toEqual([]);
  });
});
