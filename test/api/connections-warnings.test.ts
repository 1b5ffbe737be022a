import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClickhouse, type ClickhouseServer } from '../harness/clickhouse.ts';
import { logsCaughtUp, type Origin, startOrigin } from '../harness/origin.ts';
import { H2_JAR } from '../drivers/fixtures/jdbc.ts';
import { MY, PG, myExec, pgExec, tempDir } from './connections-fixtures.ts';
import { unique } from '../harness/unique.ts';

/**
 * What a connection's database user may do beyond reading, asked on create,
 * update, test and first use: the local `postgres` is a superuser, MariaDB's
 * root has FILE, PROCESS and SUPER, an H2 database's creator is its admin,
 * the ClickHouse front's user has `readonly` 0. Least-privilege users made
 * here (and dropped after) get no warning. The answers show as `warnings`
 * on POST /connections/test and the connection's own responses, and once
 * per connection in the log.
 */

const API = '/api/v1/connections/test';
const pgPlain = unique('sluice_lp');
const pgFiles = unique('sluice_rf');
const pgSignalGroup = unique('sluice_sg');
const pgSignal = unique('sluice_sig');
const myPlain = unique('sluice_lp');
const myFile = unique('sluice_fp');

let origin: Origin;
let ch: ClickhouseServer;
let folder: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  folder = await tempDir();
  const started = Promise.all([startOrigin(), startClickhouse()]);
  await pgExec(
    `CREATE ROLE ${pgPlain} LOGIN`,
    `CREATE ROLE ${pgFiles} LOGIN IN ROLE pg_read_server_files`,
    // pg_signal_backend reached through a group: pg_has_role(…, 'MEMBER') follows it.
    `CREATE ROLE ${pgSignalGroup} NOLOGIN IN ROLE pg_signal_backend`,
    `CREATE ROLE ${pgSignal} LOGIN IN ROLE ${pgSignalGroup}`,
    `CREATE TABLE IF NOT EXISTS ${pgPlain}_films (id int)`,
    `GRANT SELECT ON ${pgPlain}_films TO ${pgPlain}`,
  );
  await myExec(
    `CREATE USER '${myPlain}'@'%'`,
    `GRANT SELECT ON ${MY.database}.* TO '${myPlain}'@'%'`,
    `CREATE USER '${myFile}'@'%'`,
    `GRANT SELECT ON ${MY.database}.* TO '${myFile}'@'%'`,
    `GRANT FILE ON *.* TO '${myFile}'@'%'`,
  );
  [origin, ch] = await started;
}, 120_000);

afterAll(async () => {
  await Promise.all([origin?.stop(), ch?.stop()]);
  await pgExec(`DROP TABLE IF EXISTS ${pgPlain}_films`).catch(() => {});
  await pgExec(...[pgFiles, pgSignal, pgSignalGroup, pgPlain].map((role) => `DROP ROLE IF EXISTS ${role}`)).catch(() => {});
  await myExec(`DROP USER IF EXISTS '${myPlain}'@'%'`, `DROP USER IF EXISTS '${myFile}'@'%'`).catch(() => {});
  await folder?.remove();
});

const pg = (user: string) => ({ db: 'postgres', host: PG.host, port: PG.port, user, database: PG.database });
const my = (user: string) => ({ db: 'mysql', host: MY.host, port: MY.port, user, database: MY.database });

async function warnings(body: Record<string, unknown>): Promise<string[]> {
  const res = await origin.call('POST', API, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toMatchObject({ ok: true, duration_ms: expect.any(Number) });
  return res.body.warnings;
}

async function create(fields: Record<string, unknown>): Promise<{ name: string; body: any }> {
  const name = unique('warned');
  const res = await origin.call('POST', '/api/v1/connections', { name, ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { name, body: res.body };
}

describe('connection test warnings', () => {
  it('warns about a PostgreSQL superuser, once', async () => {
    const found = await warnings(pg(PG.user));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^The user is a superuser: .*only the privileges its queries need/);
  });

  it('warns about membership of pg_read_server_files, and of pg_signal_backend through another role', async () => {
    expect(await warnings(pg(pgFiles))).toEqual([expect.stringContaining('member of pg_read_server_files')]);
    expect(await warnings(pg(pgSignal))).toEqual([expect.stringContaining('member of pg_signal_backend')]);
  });

  it('warns about MariaDB FILE, PROCESS and SUPER, and a saved connection is checked the same way', async () => {
    const found = await warnings(my(MY.user));
    expect(found).toEqual([
      expect.stringContaining('the FILE privilege'),
      expect.stringContaining('the PROCESS privilege'),
      expect.stringContaining('the SUPER privilege'),
    ]);
    const { name } = await create(my(myFile));
    expect(await warnings({ name })).toEqual([expect.stringContaining('the FILE privilege')]);
  });

  it('has no warning for least-privilege users, nor for databases without users', async () => {
    expect(await warnings(pg(pgPlain))).toEqual([]);
    expect(await warnings(my(myPlain))).toEqual([]);
    expect(await warnings({ db: 'duckdb' })).toEqual([]);
  });

  it("warns about a ClickHouse user whose readonly setting is 0", async () => {
    expect(await warnings({ db: 'clickhouse', host: ch.host, port: ch.port })).toEqual([expect.stringMatching(/readonly setting is 0/)]);
  });

  it("warns about H2's admin, not about a user without ADMIN", async () => {
    const url = `jdbc:h2:file:${join(folder.dir, 'h2db')};DATABASE_TO_LOWER=TRUE`;
    execFileSync('java', ['-cp', H2_JAR, 'org.h2.tools.Shell', '-url', url, '-user', 'sa', '-password', 'sa-pw', '-sql',
      "CREATE USER reader PASSWORD 'reader-pw'; CREATE TABLE films (id int); GRANT SELECT ON films TO reader"]);
    expect(await warnings({ db: 'h2', user: 'sa', password: 'sa-pw', options: { jdbc_url: url } })).toEqual([expect.stringMatching(/^The user is an H2 administrator/)]);
    expect(await warnings({ db: 'h2', user: 'reader', password: 'reader-pw', options: { jdbc_url: url } })).toEqual([]);
  });
});

describe("a saved connection's warnings", () => {
  it('show on create, GET, the list and PATCH; the log has one line for the connection', async () => {
    const { name, body } = await create(pg(PG.user));
    expect(body).toMatchObject({ privileges_checked: true, warnings: [expect.stringMatching(/^The user is a superuser/)] });
    expect((await origin.call('GET', `/api/v1/connections/${name}`)).body).toMatchObject({ privileges_checked: true, warnings: body.warnings });
    const listed = (await origin.call('GET', '/api/v1/connections')).body.connections.find((c: { name: string }) => c.name === name);
    expect(listed).toMatchObject({ privileges_checked: true, warnings: body.warnings });
    for (let i = 0; i < 3; i++) expect((await origin.call('POST', '/execute_sql', { sql: 'select 1 as x', connection_name: name })).status).toBe(200);
    await warnings({ name });
    const patched = await origin.call('PATCH', `/api/v1/connections/${name}`, { user: pgPlain });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ privileges_checked: true, warnings: [] });
    await logsCaughtUp(origin);
    expect(origin.logs.filter((line) => line.includes(`connection \\"${name}\\"`) || line.includes(`connection "${name}"`))).toHaveLength(1);
  });

  it('a connection whose database cannot be reached is created, its privileges not checked yet', async () => {
    const { body } = await create({ db: 'postgres', host: '127.0.0.1', port: 1, user: 'postgres', database: 'test' });
    expect(body).toMatchObject({ privileges_checked: false, warnings: [] });
  });
});
