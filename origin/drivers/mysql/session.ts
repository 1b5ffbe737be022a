import type mysql from 'mysql2';

/** One session is one mysql2 connection with `time_zone` UTC. */
export interface MysqlSession {
  conn: mysql.Connection;
  mariadb: boolean;
  /** The statement time limit now set on the session (ms; 0 none; -1 unknown). */
  limitMs: number;
  broken: boolean;
  /** `sql_mode` as the session was opened: the handshake's IGNORE_SPACE included, which a reset drops. */
  sqlMode: string;
  /** Reads `DATABASE()`, and `CURRENT_ROLE()` where there are roles: a reset keeps what USE and SET ROLE changed. */
  identitySql: string;
  /** What `identitySql` read as the session was opened, as JSON. */
  identity: string;
}

/** Runs one statement to completion (catalog reads and session setup). */
export function exec<T = unknown>(conn: mysql.Connection, sql: string, values: unknown[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    conn.query({ sql, values, rowsAsArray: true }, (error, rows) => (error ? reject(error) : resolve(rows as T)));
  });
}

/** The assignment that sets a statement time limit of `timeoutMs` (0: none). */
export function limitAssignment(mariadb: boolean, timeoutMs: number): string {
  return mariadb ? `max_statement_time = ${timeoutMs / 1000}` : `max_execution_time = ${Math.ceil(timeoutMs)}`;
}

/**
 * The session's own settings on a new connection. The read guard and
 * mysql2's client-side escaping both assume default quoting: "..." is a
 * string and backslash escapes. A server-wide ANSI_QUOTES or
 * NO_BACKSLASH_ESCAPES would let a bound value or a guarded text mean
 * something else, so the session drops both.
 */
export async function setUpSession(conn: mysql.Connection): Promise<Omit<MysqlSession, 'conn' | 'limitMs' | 'broken'>> {
  await exec(conn, "SET time_zone = '+00:00'");
  await exec(conn, "SET SESSION sql_mode = REPLACE(REPLACE(@@SESSION.sql_mode, 'NO_BACKSLASH_ESCAPES', ''), 'ANSI_QUOTES', '')");
  const [[version, sqlMode]] = await exec<string[][]>(conn, 'SELECT @@version, @@SESSION.sql_mode');
  const mariadb = /mariadb/i.test(version);
  // Roles: MariaDB, and MySQL from 8.0.
  const identitySql = mariadb || parseInt(version, 10) >= 8 ? 'SELECT DATABASE(), CURRENT_ROLE()' : 'SELECT DATABASE()';
  return { mariadb, sqlMode, identitySql, identity: await identityOf(conn, identitySql) };
}

async function identityOf(conn: mysql.Connection, sql: string): Promise<string> {
  const [row] = await exec<unknown[][]>(conn, sql);
  return JSON.stringify(row);
}

/**
 * Puts the session back as it was opened: COM_RESET_CONNECTION rolls back
 * the transaction and drops user variables, temporary tables, prepared
 * statements, locks (GET_LOCK, LOCK TABLES) and every session variable;
 * the session's own settings and time limit are then set again. The current
 * database and role survive a reset, but only a top-level USE or SET ROLE
 * changes them, which the guard refuses in a read: after a write they are
 * checked. False when the session is not as it was opened: destroy it.
 */
export async function resetSession(session: MysqlSession, wrote: boolean): Promise<boolean> {
  const { conn } = session;
  await new Promise<void>((resolve, reject) => conn.reset((error: unknown) => (error ? reject(error) : resolve())));
  const limit = session.limitMs >= 0 ? `, ${limitAssignment(session.mariadb, session.limitMs)}` : '';
  await exec(conn, `SET SESSION time_zone = '+00:00', sql_mode = ?${limit}`, [session.sqlMode]);
  return !wrote || (await identityOf(conn, session.identitySql)) === session.identity;
}
