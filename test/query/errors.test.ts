import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../origin/drivers/types.ts';
import { tempDir } from '../api/connections-fixtures.ts';
import type { Origin } from '../harness/origin.ts';
import {
  DRIVERS,
  PROBE_SEED,
  type TestDb,
  addConnection,
  closedPort,
  createTestDb,
  executeSql,
  expectQueryError,
  rowsOf,
} from './fixture.ts';
import { unique } from '../harness/unique.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';

/** Error answers of POST /execute_sql on every database: status, `{error}` shape and `detail`. */

const PASSWORD = 'Unreachable-S3cret-pw';

/** What each database says about a table that does not exist. */
const MISSING_TABLE: Record<Dialect, RegExp> = {
  postgres: /relation "no_such_table_q" does not exist/,
  mysql: /Table '.*no_such_table_q' doesn't exist/,
  duckdb: /Table with name no_such_table_q does not exist/,
  sqlite: /no such table: no_such_table_q/,
  clickhouse: /Unknown table expression identifier 'no_such_table_q'/,
  jdbc: /no_such_table_q/i,
};

let origin: Origin;
let folder: Awaited<ReturnType<typeof tempDir>>;
const dbs: TestDb[] = [];
const conn = {} as Record<Dialect, string>;
const inactive = {} as Record<Dialect, string>;
const unreachable = {} as Record<Dialect, string>;
/** Unreachable too, but the database's message would quote the password: a host or a path named after it. */
const quoting = {} as Record<Dialect, string>;

beforeAll(async () => {
  folder = await tempDir();
  await Promise.all(
    DRIVERS.map(async (driver) => {
      const db = await createTestDb(driver, folder.dir);
      dbs.push(db);
      await db.exec(...PROBE_SEED);
    }),
  );
  origin = await sharedOrigin();
  const port = await closedPort();
  for (const db of dbs) {
    conn[db.driver] = await addConnection(origin, db);
    inactive[db.driver] = await addConnection(origin, db, { active: false });
    // Servers on a port nothing listens on; files in a folder that does not exist.
    const away =
      db.driver === 'postgres' || db.driver === 'mysql'
        ? { port, password: PASSWORD }
        : { database: join(folder.dir, 'missing', `db.${db.driver}`), password: PASSWORD };
    unreachable[db.driver] = await addConnection(origin, db, away);
    const named =
      db.driver === 'postgres' || db.driver === 'mysql'
        ? { host: `${PASSWORD}.invalid`, password: PASSWORD }
        : { database: join(folder.dir, 'missing', PASSWORD, `db.${db.driver}`), password: PASSWORD };
    quoting[db.driver] = await addConnection(origin, db, named);
  }
});

afterAll(async () => {
  await origin?.stop();
  await Promise.all(dbs.map((db) => db.drop()));
  await folder?.remove();
});

describe.each(DRIVERS)('%s', (driver) => {
  const body = (extra: Record<string, unknown> = {}) => ({ sql: 'SELECT id FROM sluice_probe', connection_name: conn[driver], ...extra });

  it('answers 404 for an unknown connection, naming it', async () => {
    const name = unique(`gone_${driver}`);
    const error = expectQueryError(await executeSql(origin, body({ connection_name: name })), 404);
    expect(error.error).toContain(name);
  });

  it('answers 403 for an inactive connection, and runs nothing', async () => {
    const error = expectQueryError(await executeSql(origin, body({ connection_name: inactive[driver] })), 403);
    expect(error.error).toMatch(/inactive/i);
    expect(error).not.toHaveProperty('detail');
  });

  it("answers 500 with the database's message in detail for SQL it rejects", async () => {
    const error = expectQueryError(await executeSql(origin, body({ sql: 'SELECT * FROM no_such_table_q' })), 500);
    expect(error.detail).toMatch(MISSING_TABLE[driver]);
    const syntax = expectQueryError(await executeSql(origin, body({ sql: 'SELECT FROM WHERE 1 +' })), 500);
    expect(typeof syntax.detail).toBe('string');
    expect(syntax.detail.length).toBeGreaterThan(0);
  });

  it('answers 500 with a detail that never shows the password when the database cannot be reached', async () => {
    for (const name of [unreachable[driver], quoting[driver]]) {
      const res = await executeSql(origin, body({ sql: 'SELECT 1 AS x', connection_name: name }));
      const error = expectQueryError(res, 500);
      expect(typeof error.detail).toBe('string');
      expect(error.detail.length).toBeGreaterThan(0);
      expect(res.text).not.toContain(PASSWORD);
      expect(res.text).not.toContain(encodeURIComponent(PASSWORD));
    }
    // The connection still works for the next good request elsewhere.
    rowsOf(await executeSql(origin, body()));
  });

  it('answers 400 for a statement whose first word is no SQL statement (a typo, not a write), and runs nothing', async () => {
    const error = expectQueryError(await executeSql(origin, body({ sql: 'selec id from sluice_probe' })), 400);
    expect(error.error).toBe('Syntax error: no SQL statement starts with SELEC (reads start with SELECT, WITH, SHOW, DESCRIBE, EXPLAIN or VALUES)');
    expect(error).not.toHaveProperty('detail');
    // A real write keyword is still refused as a write.
    expect(expectQueryError(await executeSql(origin, body({ sql: 'DELETE FROM sluice_probe' })), 403).error).toMatch(/^Writes are disabled/);
  });

  it('answers 400 for an unknown format, in the query string or the body', async () => {
    for (const res of [
      await executeSql(origin, body(), { format: 'pdf' }),
      await executeSql(origin, body({ format: 'JSON ' })),
      await executeSql(origin, body({ format: 42 })),
    ]) {
      expect(expectQueryError(res, 400).error).toMatch(/format/);
    }
  });

  it('answers 400 for a body that is not JSON, not an object, or empty', async () => {
    const name = conn[driver];
    for (const raw of [`{"sql": "SELECT 1", "connection_name": "${name}"`, 'sql=SELECT 1', '[1, 2]', '"SELECT 1"', 'null', '']) {
      expectQueryError(await executeSql(origin, raw), 400);
    }
  });

  it('answers 400 naming an unknown body field', async () => {
    const error = expectQueryError(await executeSql(origin, body({ query: 'SELECT 2' })), 400);
    expect(error.error).toContain('query');
  });

  it('answers 400 naming sql or connection_name when missing or not text', async () => {
    for (const [payload, field] of [
      [{ connection_name: conn[driver] }, 'sql'],
      [{ sql: 42, connection_name: conn[driver] }, 'sql'],
      [{ sql: null, connection_name: conn[driver] }, 'sql'],
      [{ sql: 'SELECT 1' }, 'connection_name'],
      [{ sql: 'SELECT 1', connection_name: '' }, 'connection_name'],
    ] as const) {
      expect(expectQueryError(await executeSql(origin, payload), 400).error).toContain(field);
    }
  });
});

it('sends X-Request-Id (12 hex characters) on every answer, different each time', async () => {
  const ids = new Set<string>();
  for (const path of ['/health', '/execute_sql', '/api/v1/connections', '/no/such/route']) {
    const res = await origin.fetch(path, { method: path === '/execute_sql' ? 'POST' : 'GET' });
    const id = res.headers.get('x-request-id');
    expect(id, path).toMatch(/^[0-9a-f]{12}$/);
    ids.add(id!);
    await res.body?.cancel();
  }
  expect(ids.size).toBe(4);
});
