import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../origin/drivers/types.ts';
import { myExec, tempDir } from '../api/connections-fixtures.ts';
import type { Origin } from '../harness/origin.ts';
import { type TestDb, addConnection, createTestDb, executeSql, expectQueryError, startQueryOrigin } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * What `detail` shows of a statement the database rejected. The values a
 * database echoes (a data exception or a constraint violation) are masked
 * whatever they are, so a caller guessing the connection's password learns
 * nothing from the answer: a right guess and a wrong one read the same.
 * Names (tables, columns) are kept.
 */

const PASSWORD = `Guess-me-${randomBytes(8).toString('hex')}`;
const WRONG = `Guess-me-${randomBytes(8).toString('hex')}`;
const MASK = '********';

let origin: Origin;
let folder: Awaited<ReturnType<typeof tempDir>>;
const dbs: TestDb[] = [];
const conn = {} as Record<Dialect, string>;
const mysqlUser = unique('sluice_detail');

/** A statement whose error echoes `value` as a value: a text cast (PostgreSQL), an integer column (MariaDB). */
const VALUE_ECHO: Partial<Record<Dialect, (value: string) => string>> = {
  postgres: (value) => `SELECT CAST('${value}' AS integer)`,
  mysql: (value) => `INSERT INTO guesses (n) VALUES ('${value}')`,
};

beforeAll(async () => {
  folder = await tempDir();
  // Writes on: MariaDB echoes a value in strict mode's refusal of an insert.
  origin = await startQueryOrigin({ SLUICE_ALLOW_WRITES: '1' });
  const pg = await createTestDb('postgres', folder.dir);
  dbs.push(pg);
  await pg.exec('CREATE TABLE guesses (n integer)');
  // The server trusts every local client: the password is only what the origin would redact.
  conn.postgres = await addConnection(origin, pg, { password: PASSWORD });
  const my = await createTestDb('mysql', folder.dir);
  dbs.push(my);
  await my.exec('CREATE TABLE guesses (n integer)');
  const database = String(my.fields.database);
  for (const host of ['%', 'localhost', '127.0.0.1']) {
    await myExec(`CREATE USER '${mysqlUser}'@'${host}' IDENTIFIED BY '${PASSWORD}'`, `GRANT ALL ON \`${database}\`.* TO '${mysqlUser}'@'${host}'`);
  }
  conn.mysql = await addConnection(origin, my, { user: mysqlUser, password: PASSWORD });
});

afterAll(async () => {
  await origin?.stop();
  await Promise.all(dbs.map((db) => db.drop()));
  for (const host of ['%', 'localhost', '127.0.0.1']) await myExec(`DROP USER IF EXISTS '${mysqlUser}'@'${host}'`).catch(() => {});
  await folder?.remove();
});

describe.each(['postgres', 'mysql'] as const)('%s', (driver) => {
  const rejected = async (sql: string): Promise<{ detail: string; text: string }> => {
    const res = await executeSql(origin, { sql, connection_name: conn[driver] });
    const error = expectQueryError(res, 500);
    expect(error.error).toBe('The database rejected the query');
    return { detail: error.detail, text: res.text };
  };

  it('a value the database echoes is masked whatever it is: the password guessed right reads as a wrong guess', async () => {
    const right = await rejected(VALUE_ECHO[driver]!(PASSWORD));
    const wrong = await rejected(VALUE_ECHO[driver]!(WRONG));
    expect(right.detail).toBe(wrong.detail);
    expect(right.detail).toContain(`'${MASK}'`.replace(/'/g, driver === 'postgres' ? '"' : "'"));
    for (const answer of [right, wrong]) {
      expect(answer.text).not.toContain(PASSWORD);
      expect(answer.text).not.toContain(WRONG);
    }
  });

  it('the names in a message are kept', async () => {
    const { detail } = await rejected('SELECT * FROM no_such_table_d');
    expect(detail).toMatch(driver === 'postgres' ? /relation "no_such_table_d" does not exist/ : /Table '.*no_such_table_d' doesn't exist/);
    if (driver === 'mysql') {
      // MariaDB quotes the column with backticks in the very message that echoes the value.
      expect((await rejected(VALUE_ECHO.mysql!('x'))).detail).toMatch(/`guesses`\.`n`/);
    }
  });
});
