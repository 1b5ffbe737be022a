import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgExec, tempDir } from '../api/connections-fixtures.ts';
import { ADMIN_KEY, type Reply, admin, as, makeKey } from '../grants/fixture.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type TestDb, createTestDb } from '../query/fixture.ts';
import { mysqlCli, psql } from './helpers.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';

/**
 * A pooled session goes back to the pool as it was handed out. With one
 * session kept per connection (SLUICE_POOL_SIZE=1), one caller changes its
 * session with a statement the guard lets through; the next request, on the
 * same session (same backend or connection id), finds it clean. Readers hold
 * a key granted only the connection; writes are off on `readers` and on for
 * the writer key on `writers`.
 */

let readers: Origin;
let writers: Origin;
let folder: Awaited<ReturnType<typeof tempDir>>;
const dbs: TestDb[] = [];
const pg = () => dbs[0]!;
const role = unique('sluice_reset_role');
const linkDb = unique('sluice_reset_link');
/** Connection names on each origin, by database type. */
const on: Record<'readers' | 'writers', Record<string, string>> = { readers: {}, writers: {} };
let readerKey: string;
let writerKey: string;
let writersReaderKey: string;

async function connect(origin: Origin, fields: Record<string, unknown>): Promise<string> {
  const name = unique('reset');
  const res = await admin(origin, 'POST', '/api/v1/connections', { name, ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return name;
}

beforeAll(async () => {
  folder = await tempDir();
  const env = { SLUICE_API_KEY: ADMIN_KEY, SLUICE_POOL_SIZE: '1', TZ: 'Europe/Paris' };
  const started = Promise.all([startOrigin({ env }), startOrigin({ env: { ...env, SLUICE_ALLOW_WRITES: '1' } })]);
  // A DuckDB file each: a process opening one read-write holds it alone.
  const [pg, my, duck, writersDuck, lite] = await Promise.all(
    (['postgres', 'mysql', 'duckdb', 'duckdb', 'sqlite'] as const).map((type) => createTestDb(type, folder.dir)),
  );
  dbs.push(pg, my, duck, writersDuck, lite);
  await pg.exec('CREATE TABLE films (id int PRIMARY KEY, title text)', "INSERT INTO films VALUES (1, 'Alpha')");
  // The guard refuses these calls by name (origin/sql/side-effects.ts); a function of the database's own
  // that makes them is not seen, and the session reset is what must hold then.
  await pg.exec(
    'CREATE FUNCTION reset_set(name text, value text) RETURNS text LANGUAGE sql AS $$ SELECT set_config(name, value, false) $$',
    'CREATE FUNCTION reset_lock(k bigint) RETURNS boolean LANGUAGE sql AS $$ SELECT pg_try_advisory_lock(k) $$',
    'CREATE FUNCTION reset_lock_shared(k bigint) RETURNS boolean LANGUAGE sql AS $$ SELECT pg_try_advisory_lock_shared(k) $$',
    'CREATE FUNCTION reset_lo(b bytea) RETURNS oid LANGUAGE sql AS $$ SELECT lo_from_bytea(0, b) $$',
    "CREATE FUNCTION reset_prepare() RETURNS int LANGUAGE plpgsql AS $$ BEGIN EXECUTE 'PREPARE leak AS SELECT 42'; RETURN 1; END $$",
    'CREATE TABLE shapes (id int PRIMARY KEY, a text)',
    "INSERT INTO shapes VALUES (1, 'one')",
  );
  await my.exec("CREATE FUNCTION reset_get_lock(n VARCHAR(64)) RETURNS INT NOT DETERMINISTIC RETURN GET_LOCK(n, 0)");
  for (const db of [duck, writersDuck]) await db.exec('CREATE TABLE items AS SELECT 1 AS id');
  await lite.exec('CREATE TABLE notes (id integer)');
  const csv = join(folder.dir, 'people.csv');
  writeFileSync(csv, 'id,name\n1,Ada\n');
  await pgExec(`CREATE ROLE ${role} NOLOGIN`);
  psql(`CREATE DATABASE ${linkDb}`);
  psql('CREATE EXTENSION dblink', linkDb);
  for (const fn of [
    'reset_link(name text, conn text) RETURNS text LANGUAGE sql AS $$ SELECT dblink_connect(name, conn) $$',
    'reset_link(conn text) RETURNS text LANGUAGE sql AS $$ SELECT dblink_connect(conn) $$',
    'reset_links() RETURNS text[] LANGUAGE sql AS $$ SELECT dblink_get_connections() $$',
    'reset_link_select() RETURNS int LANGUAGE sql AS $$ SELECT x FROM dblink($q$select 1$q$) AS t(x int) $$',
  ]) psql(`CREATE FUNCTION ${fn}`, linkDb);
  [readers, writers] = await started;
  for (const [which, origin] of [['readers', readers], ['writers', writers]] as const) {
    on[which].postgres = await connect(origin, pg.fields);
    on[which].mysql = await connect(origin, my.fields);
    on[which].duckdb = await connect(origin, { ...(which === 'readers' ? duck : writersDuck).fields, options: { files: { people: csv } } });
    on[which].sqlite = await connect(origin, lite.fields);
  }
  on.readers.dblink = await connect(readers, { ...pg.fields, database: linkDb, options: {} });
  readerKey = (await makeKey(readers, { connections: Object.values(on.readers) })).secret;
  writerKey = (await makeKey(writers, { connections: Object.values(on.writers), allow_writes: true })).secret;
  writersReaderKey = (await makeKey(writers, { connections: Object.values(on.writers) })).secret;
}, 120_000);

afterAll(async () => {
  await Promise.all([readers?.stop(), writers?.stop()]);
  await Promise.all(dbs.map((db) => db.drop()));
  psql(`DROP DATABASE IF EXISTS ${linkDb} WITH (FORCE)`);
  psql(`DROP ROLE IF EXISTS ${role}`);
  await folder?.remove();
});

/** One statement through `/execute_sql` with a key; the reply must be 200 unless `status` says otherwise. */
async function run(origin: Origin, key: string, connection: string, sql: string, status = 200): Promise<Reply> {
  const res = await as(origin, key).sql(connection, sql);
  expect(res.status, `${sql}: ${JSON.stringify(res.body)}`).toBe(status);
  return res;
}

const read = (connection: string, sql: string, status?: number) => run(readers, readerKey, on.readers[connection], sql, status);
const row = (res: Reply) => res.body[0] as Record<string, unknown>;

describe('postgres', () => {
  /** The session's state as a reader sees it, and which backend it is. */
  const state = async (origin = readers, key = readerKey, connection = on.readers.postgres) =>
    row(
      await run(
        origin,
        key,
        connection,
        `select pg_backend_pid() as pid, current_setting('search_path') as search_path, current_user as current,
           session_user as session, (select count(*) from films)::int as films, random() as random,
           (select count(*) from pg_prepared_statements)::int as prepared, (select count(*) from pg_listening_channels())::int as listening,
           to_regclass('pg_temp.leak')::text as temp_table, current_setting('TimeZone') as zone`,
      ),
    );

  it('a search_path set by one caller is gone for the next', async () => {
    const before = await state();
    const changed = row(await read('postgres', "select reset_set('search_path', 'pg_catalog') as sp, pg_backend_pid() as pid"));
    expect(changed.pid).toBe(before.pid);
    const after = await state();
    expect(after).toMatchObject({ pid: before.pid, search_path: before.search_path, films: 1 });
  });

  it('the role and session authorization set by one caller are gone for the next', async () => {
    const before = await state();
    await read('postgres', `select reset_set('role', '${role}')`);
    expect(await state()).toMatchObject({ pid: before.pid, current: 'postgres', session: 'postgres' });
    await read('postgres', `select reset_set('session_authorization', '${role}')`);
    expect(await state()).toMatchObject({ pid: before.pid, current: 'postgres', session: 'postgres' });
  });

  it('advisory locks are released, after a statement that ended well, was closed early or failed', async () => {
    const locked = (key: number) => psql(`select count(*) from pg_locks where locktype = 'advisory' and objid = ${key}`);
    const before = await state();
    await read('postgres', 'select reset_lock(424201), reset_lock_shared(424202)');
    expect([locked(424201), locked(424202)]).toEqual(['0', '0']);
    // One row of a page, from a first batch of thousands: the statement is closed before its end.
    const early = await as(readers, readerKey).sql(on.readers.postgres, 'select reset_lock(424205) as l from generate_series(1, 5000)', '?page_size=1');
    expect(early.body).toEqual([{ l: true }]);
    expect(locked(424205)).toBe('0');
    // Left to right: the lock is taken, then the division fails (films holds id 1 only).
    await read('postgres', 'select reset_lock(424203)::text || (1 / (id - 1))::text from films', 500);
    expect(locked(424203)).toBe('0');
    expect((await state()).pid).toBe(before.pid);
  });

  it('advisory locks are released after a streamed (COPY) statement', async () => {
    const res = await as(readers, readerKey).fetch('/execute_sql?stream=true&format=csv', {
      method: 'POST',
      // A boolean column, so that PostgreSQL writes the lines itself (pg-lines.ts).
      json: { sql: 'select reset_lock(424204) as l, g from generate_series(1, 3) g', connection_name: on.readers.postgres },
    });
    expect(res.status).toBe(200);
    expect((await res.text()).trim().split(/\r?\n/)).toHaveLength(4);
    await eventually(() => psql("select count(*) from pg_locks where locktype = 'advisory' and objid = 424204") === '0');
  });

  it('a statement a function PREPAREs is gone for the next caller: the session it was made on is not reused', async () => {
    const made = row(await read('postgres', 'select reset_prepare() as made, pg_backend_pid() as pid'));
    expect(made.made).toBe(1);
    const after = await state();
    expect(after.pid).not.toBe(made.pid);
    expect(row(await read('postgres', 'select count(*)::int as n from pg_prepared_statements where from_sql')).n).toBe(0);
  });

  it('a statement with bound parameters is prepared once and kept by the reset; a table changed under it is re-planned, not an error', async () => {
    // A boolean is bound, never written into the text: the statement goes as BEGIN, a prepared statement and the reset.
    const lookup = (id: number) =>
      readers.call('POST', '/execute_sql', { sql: 'select * from shapes where id = :id and :on', params: { id, on: true }, connection_name: on.readers.postgres }, { 'x-api-key': readerKey });
    const first = await lookup(1);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual([{ id: 1, a: 'one' }]);
    const ours = row(await read('postgres', 'select count(*)::int as n, pg_backend_pid() as pid from pg_prepared_statements where not from_sql'));
    expect(ours.n).toBeGreaterThan(0);
    await pg().exec('ALTER TABLE shapes ADD COLUMN b int DEFAULT 7');
    const changed = await lookup(1);
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toEqual([{ id: 1, a: 'one', b: 7 }]);
    expect((await state()).pid).toBe(ours.pid);
  });

  it('random() is not left seeded by another caller', async () => {
    await read('postgres', 'select setseed(0.25)');
    const first = (await state()).random;
    await read('postgres', 'select setseed(0.25)');
    expect((await state()).random).not.toBe(first);
  });

  it('a large object written with writes off does not persist', async () => {
    const made = row(await read('postgres', "select reset_lo('hello'::bytea)::int8::text as oid"));
    expect(psql(`select count(*) from pg_largeobject_metadata where oid = ${made.oid}`)).toBe('0');
  });

  it("dblink's connections are closed", async () => {
    const target = "'host=127.0.0.1 user=postgres dbname=test'";
    const opened = row(await read('dblink', `select reset_link('leak', ${target}) as named, reset_link(${target}) as unnamed, pg_backend_pid() as pid`));
    const after = row(await read('dblink', 'select reset_links() as named, pg_backend_pid() as pid'));
    expect(after).toEqual({ named: null, pid: opened.pid });
    const unnamed = await read('dblink', 'select reset_link_select()', 500);
    expect(unnamed.body.detail).toMatch(/connection not available/);
  });

  it('what a writer changes in its session is reset after the commit', async () => {
    const writer = (sql: string) => run(writers, writerKey, on.writers.postgres, sql);
    const look = () => state(writers, writersReaderKey, on.writers.postgres);
    const before = await look();
    for (const sql of [
      'SET search_path TO pg_catalog',
      `SET ROLE ${role}`,
      `SET SESSION AUTHORIZATION ${role}`,
      "SET TimeZone TO 'Asia/Tokyo'",
      'PREPARE leak AS SELECT 1',
      'LISTEN leak',
      'CREATE TEMP TABLE leak AS SELECT 1 AS x',
    ]) {
      await writer(sql);
      expect(await look(), sql).toMatchObject({ ...before, random: expect.any(Number) });
    }
    expect(before).toMatchObject({ prepared: 0, listening: 0, temp_table: null, zone: 'UTC' });
  });
});

describe('mariadb', () => {
  const state = async (origin = readers, key = readerKey, connection = on.readers.mysql) =>
    row(
      await run(
        origin,
        key,
        connection,
        'SELECT CONNECTION_ID() AS id, @leak AS `leak`, @@time_zone AS zone, @@sql_mode AS mode, @@max_statement_time AS `limit`, DATABASE() AS db',
      ),
    );

  it('a user variable set by one caller is NULL for the next; the session keeps its own settings', async () => {
    const before = await state();
    expect(before.zone).toBe('+00:00');
    await read('mysql', "SELECT @leak := 'secret' AS v");
    expect(await state()).toEqual(before);
  });

  it('GET_LOCK locks are released', async () => {
    const name = unique('reset_lock');
    const before = await state();
    await read('mysql', `SELECT reset_get_lock('${name}') AS l`);
    expect(mysqlCli(`SELECT IS_FREE_LOCK('${name}')`)).toBe('1');
    expect((await state()).id).toBe(before.id);
  });

  it('what a writer changes is reset; a session whose database changed is not reused', async () => {
    const writer = (sql: string) => run(writers, writerKey, on.writers.mysql, sql);
    const look = () => state(writers, writersReaderKey, on.writers.mysql);
    const before = await look();
    await writer("SET @leak = 'w', time_zone = '+05:00', SESSION sql_mode = 'ANSI_QUOTES'");
    expect(await look()).toEqual(before);
    await writer('USE test');
    const after = await look();
    expect(after).toMatchObject({ ...before, id: expect.any(Number) });
    expect(after.id).not.toBe(before.id);
  });
});

describe('duckdb', () => {
  it("random()'s seed and profiling set by one caller do not reach the next", async () => {
    const local = await DuckDBInstance.create(':memory:');
    const conn = await local.connect();
    await conn.run('select setseed(0.5)');
    const seeded = (await conn.runAndReadAll('select random()')).getRowsJS()[0][0];
    conn.closeSync();
    local.closeSync();
    await read('duckdb', 'select setseed(0.5)');
    expect(row(await read('duckdb', 'select random() as r')).r).not.toBe(seeded);
    await read('duckdb', 'select * from enable_profiling()');
    await read('duckdb', 'select count(*) as n from people');
    expect(readers.logs.join('\n')).not.toMatch(/Query Profiling Information/);
  });

  it("a writer's variables, temporary tables and search path are gone; the files stay readable", async () => {
    const writer = (sql: string) => run(writers, writerKey, on.writers.duckdb, sql);
    const reader = (sql: string) => run(writers, writersReaderKey, on.writers.duckdb, sql);
    await writer("SET VARIABLE leak = 'w'");
    await writer('CREATE TEMP TABLE leak AS SELECT 1 AS x');
    await writer("SET search_path = 'temp'");
    expect(row(await reader("select getvariable('leak') as v, (select count(*) from duckdb_tables() where table_name = 'leak')::int as t")))
      .toEqual({ v: null, t: 0 });
    expect((await reader('select p.name, i.id from people p, items i')).body).toEqual([{ name: 'Ada', id: 1 }]);
  });
});

describe('sqlite', () => {
  it("a writer's ATTACH does not reach the next writer", async () => {
    const writer = (sql: string) => run(writers, writerKey, on.writers.sqlite, sql);
    await writer("ATTACH ':memory:' AS leak");
    const names = (await writer('PRAGMA database_list')).body.map((r: { name: string }) => r.name);
    expect(names).toEqual(['main']);
    await writer('INSERT INTO notes VALUES (1)');
    expect((await run(writers, writersReaderKey, on.writers.sqlite, 'select count(*) as n from notes')).body).toEqual([{ n: 1 }]);
  });
});
