import { ClickhouseDriver } from '../../drivers/clickhouse/driver.ts';
import { readAll } from '../../drivers/cursor.ts';
import { JdbcDriver } from '../../drivers/jdbc/driver.ts';
import { type AnyDriver, type Driver, runsSql } from '../../drivers/types.ts';
import { SluiceError } from '../../errors.ts';
import type { Value } from '../../values.ts';

const ADVICE = 'connect as a user with only the privileges its queries need (see docs/reference/connections.md)';

/** One row per user: superuser, then membership (direct or through other roles) of the roles that reach the server's files, programs and sessions. */
const POSTGRES = `SELECT rolsuper,
  pg_has_role(current_user, 'pg_read_server_files', 'MEMBER'),
  pg_has_role(current_user, 'pg_write_server_files', 'MEMBER'),
  pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER'),
  pg_has_role(current_user, 'pg_signal_backend', 'MEMBER')
FROM pg_roles WHERE rolname = current_user`;

const POSTGRES_ROLES = [
  'pg_read_server_files: it can read any file the database server can',
  'pg_write_server_files: it can write any file the database server can',
  'pg_execute_server_program: it can run programs on the database server',
  "pg_signal_backend: it can cancel and end other users' sessions (pg_terminate_backend)",
];

/** The account's own global grants (`'user'@'host'`, as information_schema names it) among the dangerous ones. */
const MYSQL = `SELECT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES
WHERE GRANTEE = CONCAT('''', LEFT(CURRENT_USER(), CHAR_LENGTH(CURRENT_USER()) - CHAR_LENGTH(SUBSTRING_INDEX(CURRENT_USER(), '@', -1)) - 1),
  '''@''', SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')
  AND PRIVILEGE_TYPE IN ('FILE', 'SUPER', 'PROCESS')
ORDER BY PRIVILEGE_TYPE`;

const MYSQL_PRIVILEGES: Record<string, string> = {
  FILE: 'The user has the FILE privilege: it can read and write files on the database server (LOAD_FILE, SELECT ... INTO OUTFILE, LOAD DATA INFILE)',
  PROCESS: "The user has the PROCESS privilege: it can see every session's statements, other users' included (SHOW PROCESSLIST, information_schema.PROCESSLIST)",
  SUPER: 'The user has the SUPER privilege: it can change server settings, end other sessions and write while the server is read_only',
};

/** H2 1.4 names the column ADMIN (text), 2.x IS_ADMIN (boolean): every column is read and the right one picked. */
const H2 = 'SELECT * FROM INFORMATION_SCHEMA.USERS WHERE USER_NAME = CURRENT_USER';

/**
 * Asks the database what the connection's user may do beyond reading: the
 * read guard refuses the known ways to the server's files and state, a
 * least-privileged user is what stops the unknown ones (a function of the
 * database's own that calls them). DuckDB, SQLite and MongoDB connections
 * are not asked (no users to ask about, or only `find` runs). A database
 * that cannot be reached rejects (`connection_failed`): nothing is known yet.
 * A check the database refuses (an old server, a view the user may not
 * read) is a warning of its own: nothing says the user is least-privileged.
 */
export async function privilegeWarnings(driver: AnyDriver): Promise<string[]> {
  if (!runsSql(driver) || driver.type === 'duckdb' || driver.type === 'sqlite') return [];
  if (driver instanceof JdbcDriver && !driver.h2) return [];
  await driver.test();
  try {
    return await ask(driver);
  } catch (error) {
    const detail = error instanceof SluiceError ? String(error.extras.detail ?? error.message) : String(error);
    return [`The user's privileges could not be read (${detail}): nothing shows it is least-privileged; ${ADVICE}`];
  }
}

async function ask(driver: Driver): Promise<string[]> {
  if (driver.type === 'postgres') {
    const [row] = await rowsOf(driver, POSTGRES);
    if (!row) return [];
    if (row[0] === true) {
      return [`The user is a superuser: it can read and write the server's files, run programs there, end other sessions and bypass every permission; ${ADVICE}`];
    }
    return POSTGRES_ROLES.filter((_, i) => row[i + 1] === true).map((role) => `The user is a member of ${role}; ${ADVICE}`);
  }
  if (driver.type === 'mysql') {
    const rows = await rowsOf(driver, MYSQL);
    return rows.map(([privilege]) => MYSQL_PRIVILEGES[String(privilege)]).filter(Boolean).map((text) => `${text}; ${ADVICE}`);
  }
  if (driver instanceof ClickhouseDriver) {
    const readonly = await driver.userSetting('readonly');
    if (readonly !== '0') return [];
    return [`The user's readonly setting is 0: outside Sluice's guard it may write, create and drop tables and change settings; give it a profile with readonly = 2 and only SELECT grants; ${ADVICE}`];
  }
  if (driver instanceof JdbcDriver) {
    const cursor = await driver.run(request(H2));
    const column = cursor.columns.findIndex((c) => /^(is_)?admin$/i.test(c.name));
    const [row] = await readAll(cursor);
    if (column < 0 || !row) throw new Error('INFORMATION_SCHEMA.USERS has no row with an admin column for the current user');
    const admin = row[column];
    if (admin !== true && String(admin).toLowerCase() !== 'true') return [];
    return [`The user is an H2 administrator: it can read and write files as the origin's own user (FILE_READ, FILE_WRITE, CSVWRITE, SCRIPT TO), define Java functions (CREATE ALIAS) and end other sessions; create a user without ADMIN, granted SELECT on the tables its queries read; ${ADVICE}`];
  }
  return [];
}

const request = (text: string) => ({ text, values: [], readOnly: true, timeoutMs: 5000, signal: new AbortController().signal, batchSize: 10 });

function rowsOf(driver: Driver, text: string): Promise<Value[][]> {
  return driver.run(request(text)).then(readAll);
}
