import type mysql from 'mysql2';
import { openCursor } from '../cursor.ts';
import { mysqlCatalog } from './catalog.ts';
import { exec, limitAssignment, setUpSession, type MysqlSession } from './session.ts';
import { MysqlStatement, type StatementHost } from './statement.ts';
import { PooledDriver } from '../pooled.ts';
import type { ConnectionSettings, DriverEnv, RowCursor, RunRequest } from '../types.ts';

const ER_STATEMENT_TIMEOUT = 1969; // MariaDB max_statement_time
const ER_QUERY_TIMEOUT = 3024; // MySQL max_execution_time

let mysql2: Promise<typeof mysql> | null = null;

/** mysql2 on the first MySQL connection: ~5 MB of heap a server without one never needs. */
const loadMysql2 = () => (mysql2 ??= import('mysql2').then((m) => m.default));

export class MysqlDriver extends PooledDriver<MysqlSession, mysql.Connection> implements StatementHost {
  readonly type = 'mysql' as const;
  readonly dialect = 'mysql' as const;
  protected readonly catalog = mysqlCatalog;

  constructor(
    private readonly settings: ConnectionSettings,
    env: DriverEnv,
  ) {
    super(settings, env);
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

  protected async destroySession(session: MysqlSession): Promise<void> {
    dropConnection(session.conn);
  }

  protected override sessionAlive(session: MysqlSession): boolean {
    return !session.broken;
  }

  protected handle(session: MysqlSession): mysql.Connection {
    return session.conn;
  }

  /** A statement error leaves the connection usable unless mysql2 calls it fatal. */
  protected override keepsSessionAfter(error: unknown): boolean {
    return !(error as { fatal?: boolean }).fatal;
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
    const session = await this.sessionForStatement(request);
    return openCursor(new MysqlStatement(this, session, request, this.readOnly(request)), {
      request,
      fail: (error) => this.statementFailed(error),
      isTimeout: (error) => {
        const errno = (error as { errno?: number }).errno;
        return errno === ER_STATEMENT_TIMEOUT || errno === ER_QUERY_TIMEOUT;
      },
    });
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
