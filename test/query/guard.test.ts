import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../origin/drivers/types.ts';
import { inspect } from '../../origin/sql/index.ts';
import { tempDir } from '../api/connections-fixtures.ts';
import type { Origin } from '../harness/origin.ts';
import { GUARD_CORPUS, type GuardCase } from '../unit/sql/corpus.ts';
import {
  DRIVERS,
  PROBE_SEED,
  type TestDb,
  addConnection,
  createTestDb,
  executeSql,
  expectQueryError,
  rowsOf,
  startQueryOrigin,
} from './fixture.ts';

/**
 * The read guard over HTTP on every database: the statement corpus of the SQL
 * unit tests against a read-only server and a server with writes enabled, and
 * the database's own read-only mode behind the text guard.
 */

/** Extra objects the database-level checks use: something a read statement could write through. */
const READ_ONLY_PROBES: Partial<Record<Dialect, string[]>> = {
  postgres: ['CREATE SEQUENCE guard_seq'],
  mysql: [
    'CREATE TABLE bumped (id integer)',
    'CREATE FUNCTION guard_bump() RETURNS integer MODIFIES SQL DATA BEGIN INSERT INTO bumped VALUES (1); RETURN 1; END',
  ],
  duckdb: ['CREATE SEQUENCE guard_seq'],
};

let reader: Origin;
let writer: Origin;
let folder: Awaited<ReturnType<typeof tempDir>>;
const dbs: TestDb[] = [];
const readConn = {} as Record<Dialect, string>;
const writeConn = {} as Record<Dialect, string>;
const readDb = {} as Record<Dialect, TestDb>;
const writeDb = {} as Record<Dialect, TestDb>;

beforeAll(async () => {
  folder = await tempDir();
  // A database for each server: DuckDB locks its file per process, so the writer gets its own.
  await Promise.all(
    DRIVERS.map(async (driver) => {
      const [forReader, forWriter] = await Promise.all([createTestDb(driver, folder.dir), createTestDb(driver, folder.dir)]);
      dbs.push(forReader, forWriter);
      readDb[driver] = forReader;
      writeDb[driver] = forWriter;
      await forReader.exec(...PROBE_SEED, ...(READ_ONLY_PROBES[driver] ?? []));
      await forWriter.exec('CREATE TABLE written (id integer, name text)');
    }),
  );
  [reader, writer] = await Promise.all([startQueryOrigin(), startQueryOrigin({ SLUICE_ALLOW_WRITES: '1' })]);
  for (const driver of DRIVERS) {
    readConn[driver] = await addConnection(reader, readDb[driver]);
    writeConn[driver] = await addConnection(writer, writeDb[driver]);
  }
});

afterAll(async () => {
  await Promise.all([reader?.stop(), writer?.stop()]);
  await Promise.all(dbs.map((db) => db.drop()));
  await folder?.remove();
});

/** More or fewer than one statement is a bad request (400), not a refused write. */
const severalOrNone = (c: GuardCase, driver: Dialect) => inspect(c.sql, driver).statementCount !== 1;

describe.each(DRIVERS)('%s: the statement corpus on a read-only server', (driver) => {
  const cases = GUARD_CORPUS.filter((c) => c.dialects.includes(driver));
  const run = (sql: string, query = {}) => executeSql(reader, { sql, connection_name: readConn[driver] }, query);

  it.each(cases.filter((c) => c.read))('read: $sql', async (c) => {
    const res = await run(c.sql);
    if (c.runs === false) {
      // Let through by the text guard, then refused by the database (read-only transaction, syntax).
      expect(typeof expectQueryError(res, 500).detail).toBe('string');
    } else {
      rowsOf(res);
      expect(res.headers.get('x-page')).toBe('1');
    }
  });

  it.each(cases.filter((c) => !c.read && !severalOrNone(c, driver)))('write, refused with 403: $sql', async (c) => {
    const body = expectQueryError(await run(c.sql), 403);
    const info = inspect(c.sql, driver);
    // The answer says why: the guard's own reason, and the corpus's wording where it pins one.
    expect(body.error).toMatch(/writes are disabled/i);
    expect(body.error).toContain(info.refusal);
    if (c.refusal) expect(body.error).toContain(c.refusal);
  });

  it.each(cases.filter((c) => severalOrNone(c, driver)))('several statements or none, 400: $sql', async (c) => {
    expectQueryError(await run(c.sql), 400);
  });

  it('answers 400 for empty or blank sql, and leaves the table alone after every refusal', async () => {
    for (const sql of ['', '   ', '\n\t']) expectQueryError(await run(sql), 400);
    const res = await run('SELECT count(*) AS n FROM sluice_probe');
    expect(rowsOf(res).map((r) => Number(r.n))).toEqual([3]);
  });
});

describe.each(DRIVERS)('%s: the database enforces read-only behind the text guard', (driver) => {
  const run = (sql: string) => executeSql(reader, { sql, connection_name: readConn[driver] });

  if (driver === 'postgres') {
    it('refuses nextval() in the read-only transaction', async () => {
      const body = expectQueryError(await run("SELECT nextval('guard_seq') AS v"), 500);
      expect(body.detail).toMatch(/read-only transaction/);
      expect(await readDb.postgres.query('SELECT is_called FROM guard_seq')).toEqual([{ is_called: false }]);
    });
  }

  if (driver === 'mysql') {
    it('refuses a SELECT of a function that inserts, and nothing is inserted', async () => {
      const body = expectQueryError(await run('SELECT guard_bump() AS b'), 500);
      expect(body.detail).toMatch(/READ ONLY/i);
      expect(await readDb.mysql.query('SELECT count(*) AS n FROM bumped')).toEqual([{ n: 0 }]);
    });
  }

  if (driver === 'duckdb') {
    it('refuses nextval() on the file opened read-only', async () => {
      const body = expectQueryError(await run("SELECT nextval('guard_seq') AS v"), 500);
      expect(body.detail).toMatch(/read-only|read only/i);
    });

    it('refuses to read files outside the connection (external access locked down)', async () => {
      for (const sql of ["SELECT * FROM read_csv('/etc/passwd')", "SELECT content FROM read_text('/etc/hostname')"]) {
        const body = expectQueryError(await run(sql), 500);
        expect(body.detail).toMatch(/Permission Error|disabled by configuration/);
        expect(body.detail).not.toContain('root:');
      }
    });
  }

  if (driver === 'sqlite') {
    // No read statement SQLite accepts can write (no writing functions), so the read-only
    // handle shows itself only in what it will not do: create a database file.
    it('opens an existing file only: a missing one is an error and is not created', async () => {
      const missing = join(folder.dir, 'never-created.sqlite');
      const name = await addConnection(reader, { ...readDb.sqlite, fields: { db: 'sqlite', database: missing } });
      const body = expectQueryError(await executeSql(reader, { sql: 'SELECT 1 AS x', connection_name: name }), 500);
      expect(typeof body.detail).toBe('string');
      expect(existsSync(missing)).toBe(false);
    });
  }
});

describe.each(DRIVERS)('%s: a server with SLUICE_ALLOW_WRITES=1', (driver) => {
  const run = (sql: string, query = {}) => executeSql(writer, { sql, connection_name: writeConn[driver] }, query);

  it('runs a write, and the next read sees it', async () => {
    rowsOf(await run("INSERT INTO written VALUES (7, 'seven')"));
    expect(rowsOf(await run('SELECT id, name FROM written'))).toEqual([{ id: 7, name: 'seven' }]);
  });

  it('refuses a write with stream=true (403), and it does not run', async () => {
    const body = expectQueryError(await run("INSERT INTO written VALUES (8, 'eight')", { stream: 'true', format: 'csv' }), 403);
    expect(body.error).toMatch(/read-only/i);
    expect(body.error).toContain('INSERT is a write statement');
    expect(rowsOf(await run('SELECT id FROM written WHERE id = 8'))).toEqual([]);
  });

  it.each(GUARD_CORPUS.filter((c) => c.dialects.includes(driver) && severalOrNone(c, driver)))(
    'still refuses several statements or none (400): $sql',
    async (c) => {
      expectQueryError(await run(c.sql), 400);
    },
  );

  // Text the guard cannot read the same way the database will (MySQL executable comments,
  // quoting that depends on sql_mode) carries no write operation a setting could allow:
  // it must never run. One case is left out: if it did run, it would write /tmp/x on the
  // database host.
  const neverRun = GUARD_CORPUS.filter((c) => {
    if (!c.dialects.includes(driver) || severalOrNone(c, driver)) return false;
    const info = inspect(c.sql, driver);
    return !info.isRead && info.writeOps.length === 0 && !/\/\*!\d*\s*INTO OUTFILE/i.test(c.sql);
  });
  if (neverRun.length > 0) {
    it.each(neverRun)('still refuses text that must never run (403): $sql', async (c) => {
      const body = expectQueryError(await run(c.sql), 403);
      expect(body.error).toContain(inspect(c.sql, driver).refusal);
    });
  }
});
