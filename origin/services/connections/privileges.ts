import { readAll } from '../../drivers/cursor.ts';
import { type AnyDriver, type Driver, runsSql } from '../../drivers/types.ts';
import type { Value } from '../../values.ts';

const ADVICE = 'connect as a user with only the privileges its queries need (see docs/reference/connections.md)';

/** One row per user: superuser, then membership of the roles that reach the server's files and programs. */
const POSTGRES = `SELECT rolsuper,
  pg_has_role(current_user, 'pg_read_server_files', 'MEMBER'),
  pg_has_role(current_user, 'pg_write_server_files', 'MEMBER'),
  pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER')
FROM pg_roles WHERE rolname = current_user`;

const POSTGRES_ROLES = [
  'pg_read_server_files: it can read any file the database server can',
  'pg_write_server_files: it can write any file the database server can',
  'pg_execute_server_program: it can run programs on the database server',
];

/** The account's own global grants (`'user'@'host'`, as information_schema names it) among the dangerous ones. */
const MYSQL = `SELECT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES
WHERE GRANTEE = CONCAT('''', LEFT(CURRENT_USER(), CHAR_LENGTH(CURRENT_USER()) - CHAR_LENGTH(SUBSTRING_INDEX(CURRENT_USER(), '@', -1)) - 1),
  '''@''', SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')
  AND PRIVILEGE_TYPE IN ('FILE', 'SUPER')
ORDER BY PRIVILEGE_TYPE`;

const MYSQL_PRIVILEGES: Record<string, string> = {
  FILE: 'The user has the FILE privilege: it can read and write files on the database server (LOAD_FILE, SELECT ... INTO OUTFILE, LOAD DATA INFILE)',
  SUPER: 'The user has the SUPER privilege: it can change server settings, end other sessions and write while the server is read_only',
};

/**
 * Warnings about the connected user's privileges, for `POST /connections/test`:
 * the read guard refuses the known ways to the server's files and state, a
 * least-privileged user is what stops the unknown ones (a function of the
 * database's own that calls them). DuckDB and SQLite have no users. A check
 * that fails (an old server, a view it may not read) gives no warning: the
 * connection itself worked.
 */
export async function privilegeWarnings(driver: AnyDriver): Promise<string[]> {
  // A document connection only ever reads through find: there is no statement to reach the server's files.
  if (!runsSql(driver)) return [];
  try {
    if (driver.type === 'postgres') {
      const [row] = await rowsOf(driver, POSTGRES);
      if (!row) return [];
      if (row[0] === true) {
        return [`The user is a superuser: it can read and write the server's files, run programs there and bypass every permission; ${ADVICE}`];
      }
      return POSTGRES_ROLES.filter((_, i) => row[i + 1] === true).map((role) => `The user is a member of ${role}; ${ADVICE}`);
    }
    if (driver.type === 'mysql') {
      const rows = await rowsOf(driver, MYSQL);
      return rows.map(([privilege]) => MYSQL_PRIVILEGES[String(privilege)]).filter(Boolean).map((text) => `${text}; ${ADVICE}`);
    }
  } catch {
    // Advice only: the connection test has already succeeded.
  }
  return [];
}

function rowsOf(driver: Driver, text: string): Promise<Value[][]> {
  return driver.run({ text, values: [], readOnly: true, timeoutMs: 5000, signal: new AbortController().signal, batchSize: 10 }).then(readAll);
}
