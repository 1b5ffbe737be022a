import type mysql from 'mysql2';
import { openCursor } from '../cursor.ts';
import { connectionFailed, queryFailed, unreachable } from '../failures.ts';
import { mysqlDatabases, mysqlSchema, mysqlTableDdl } from './catalog.ts';
import { exec, limitAssignment, setUpSession, type MysqlSession } from './session.ts';
import { MysqlStatement, type StatementHost } from './statement.ts';
import { SessionPool } from '../pool.ts';
import { createRedactor, type Redactor } from '../redact.ts';
import type { ConnectionSettings, Driver, DriverEnv, RowCursor, RunRequest, SchemaListing } from '../types.ts';

const ER_STATEMENT_TIMEOUT = 1969; // MariaDB max_statement_time
const ER_QUERY_TIMEOUT = 3024; // MySQL max_execution_time

let mysql2: Promise<typeof mysql> | null = null;

/** mysql2 on the first MySQL connection: ~5 MB of heap a server without one never needs. */
const loadMysql2 = () => (mysql2 ??= import('mysql2').then((m) => m.default));

export class MysqlDriver implements Driver, StatementHost {
  readonly type = 'mysql' as const;
  readonly dialect = 'mysql' as const;
  readonly redactor: Redactor;
  private readonly pool: SessionPool<MysqlSession>;

  constructor(
    private readonly settings: ConnectionSettings,
    private readonly env: DriverEnv,
  ) {
    this.redactor = createRedactor(settings.password);
    this.pool = new SessionPool<MysqlSession>(
      { open: () => this.openSession(), destroy: async (s) => dropConnection(s.conn), alive: (s) => !s.broken },
      { size: env.poolSize, idleTimeoutMs: env.poolIdleTimeoutMs },
    );
  }

  private async connect(database?: string): Promise<mysql.Connection> {
    const { settings } = this;
    const options = settings.options;
    const { createConnection } = await loadMysql2();
    const conn = createConnection({
      host: settings.host ?? '127.0.0.1',
      port: settings.port ?? 3306,
      user: settings.user ?? undefined,
      password: settings.password ?? undefined,
      database: database ?? settings.database ?? undefined,
      charset: 'utf8mb4',
      timezone: 'Z',
      supportBigNumbers: true,
      bigNumberStrings: true,
      dateStrings: true,
      jsonStrings: true,
      multipleStatements: false,
      connectTimeout: Number(options.connect_timeout ?? 10) * 1000,
      ssl: options.ssl as mysql.ConnectionOptions['ssl'],
    });
    return new Promise((resolve, reject) => {
      conn.connect((error) => (error ? (conn.destroy(), reject(error)) : resolve(conn)));
    });
  }

  async openSession(database?: string): Promise<MysqlSession> {
    const conn = await this.connect(database);
    const session: MysqlSession = { conn, mariadb: false, limitMs: -1, broken: false, sqlMode: '', identitySql: '', identity: '' };
    conn.on('error', () => (session.broken = true));
    conn.on('end', () => (session.broken = true));
    try {
      Object.assign(session, await setUpSession(conn));
    } catch (error) {
      conn.destroy();
      throw error;
    }
    return session;
  }

  /** Sets the server-side statement limit when the session's differs (a backstop to our own timer). */
  async setLimit(session: MysqlSession, timeoutMs: number): Promise<void> {
    if (session.limitMs === timeoutMs) return;
    await exec(session.conn, `SET SESSION ${limitAssignment(session.mariadb, timeoutMs)}`);
    session.limitMs = timeoutMs;
  }

  /** `KILL QUERY` from a separate connection: the one way to stop a running statement. */
  async killQuery(threadId: number | null): Promise<void> {
    if (threadId === null) return;
    const conn = await this.connect();
    try {
      await exec(conn, `KILL QUERY ${Number(threadId)}`);
    } finally {
      conn.destroy();
    }
  }

  async run(request: RunRequest): Promise<RowCursor> {
    const fail = (error: unknown) => queryFailed(error, this.redactor);
    const session = await this.pool.acquire().catch((error: unknown) => Promise.reject(unreachable(error, this.redactor)));
    const readOnly = request.readOnly || !this.env.allowWrites;
    return openCursor(new MysqlStatement(this, session, request, readOnly), {
      request,
      fail,
      isTimeout: (error) => {
        const errno = (error as { errno?: number }).errno;
        return errno === ER_STATEMENT_TIMEOUT || errno === ER_QUERY_TIMEOUT;
      },
    });
  }

  release(session: MysqlSession, reusable: boolean): Promise<void> {
    return this.pool.release(session, reusable);
  }

  private async withSession<T>(work: (conn: mysql.Connection) => Promise<T>): Promise<T> {
    let session: MysqlSession;
    try {
      session = await this.pool.acquire();
    } catch (error) {
      throw connectionFailed(error, this.redactor);
    }
    let reusable = true;
    try {
      return await work(session.conn);
    } catch (error) {
      reusable = !(error as { fatal?: boolean }).fatal;
      throw queryFailed(error, this.redactor);
    } finally {
      await this.pool.release(session, reusable);
    }
  }

  schema(options: { database?: string; maxColumns: number }): Promise<SchemaListing> {
    return this.withSession((conn) => mysqlSchema(conn, options.database ?? null, options.maxColumns));
  }

  databases(): Promise<string[]> {
    return this.withSession(mysqlDatabases).catch((error) => Promise.reject(connectionFailed(error, this.redactor)));
  }

  tableDdl(table: string): Promise<string> {
    return this.withSession((conn) => mysqlTableDdl(conn, table));
  }

  async test(): Promise<void> {
    await this.withSession((conn) => exec(conn, 'SELECT 1')).catch((error) =>
      Promise.reject(connectionFailed(error, this.redactor)),
    );
  }

  idleSessions(): number {
    return this.pool.idleCount;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * mysql2's `destroy()` only half-closes the socket. A connection paused by
 * backpressure then never reads again, and the server stays blocked writing
 * the rest of a killed result until `net_write_timeout`. Destroying the socket
 * itself lets the server see the kill at once.
 */
function dropConnection(conn: mysql.Connection): void {
  conn.destroy();
  (conn as unknown as { stream?: { destroy(): void } }).stream?.destroy();
}
