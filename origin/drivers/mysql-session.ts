import type mysql from 'mysql2';

/** One session is one mysql2 connection with `time_zone` UTC. */
export interface MysqlSession {
  conn: mysql.Connection;
  mariadb: boolean;
  /** The statement time limit now set on the session (ms; 0 none; -1 unknown). */
  limitMs: number;
  broken: boolean;
}

/** Runs one statement to completion (catalog reads and session setup). */
export function exec<T = unknown>(conn: mysql.Connection, sql: string, values: unknown[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    conn.query({ sql, values, rowsAsArray: true }, (error, rows) => (error ? reject(error) : resolve(rows as T)));
  });
}
