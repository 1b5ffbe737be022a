import mysql from 'mysql2';
import type { Value } from '../values.ts';
import { openCursor, type Outcome, type StatementSource } from './cursor.ts';
import { connectionFailed, queryFailed } from './failures.ts';
import { mysqlDatabases, mysqlSchema, mysqlTableDdl } from './mysql-catalog.ts';
import { mysqlType, type MysqlField } from './mysql-types.ts';
import { SessionPool } from './pool.ts';
import { createRedactor, type Redactor } from './redact.ts';
import type { ColumnMeta, ConnectionSettings, Driver, DriverEnv, RowCursor, RunRequest, SchemaListing } from './types.ts';

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

const ER_STATEMENT_TIMEOUT = 1969; // MariaDB max_statement_time
const ER_QUERY_TIMEOUT = 3024; // MySQL max_execution_time
/** How long closing early may spend reading the rest of a result before killing it instead. */
const DRAIN_BUDGET_MS = 200;

export class MysqlDriver implements Driver {
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
      { open: () => this.openSession(), destroy: async (s) => s.conn.destroy(), alive: (s) => !s.broken },
      { size: env.poolSize, idleTimeoutMs: env.poolIdleTimeoutMs },
    );
  }

  private connect(database?: string): Promise<mysql.Connection> {
    const { settings } = this;
    const options = settings.options;
    const conn = mysql.createConnection({
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
    const session: MysqlSession = { conn, mariadb: false, limitMs: -1, broken: false };
    conn.on('error', () => (session.broken = true));
    conn.on('end', () => (session.broken = true));
    try {
      await exec(conn, "SET time_zone = '+00:00'");
      const [[version]] = await exec<string[][]>(conn, 'SELECT @@version');
      session.mariadb = /mariadb/i.test(version);
    } catch (error) {
      conn.destroy();
      throw error;
    }
    return session;
  }

  /** Sets the server-side statement limit when the session's differs (a backstop to our own timer). */
  async setLimit(session: MysqlSession, timeoutMs: number): Promise<void> {
    if (session.limitMs === timeoutMs) return;
    const sql = session.mariadb
      ? `SET SESSION max_statement_time = ${timeoutMs / 1000}`
      : `SET SESSION max_execution_time = ${Math.ceil(timeoutMs)}`;
    await exec(session.conn, sql);
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
    const session = await this.pool.acquire().catch((error: unknown) => Promise.reject(fail(error)));
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
 * One statement streamed with backpressure: rows collect into batches and the
 * connection is paused while a full batch waits to be pulled.
 */
class MysqlStatement implements StatementSource {
  private converts: (((value: unknown) => Value) | null)[] = [];
  private readonly ready: Value[][][] = [];
  private current: Value[][] = [];
  private columns: ColumnMeta[] | null = null;
  private ended = false;
  private error: unknown = null;
  private paused = false;
  private discarding = false;
  private interrupted = false;
  private inTransaction = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly driver: MysqlDriver,
    private readonly session: MysqlSession,
    private readonly request: RunRequest,
    private readonly readOnly: boolean,
  ) {}

  async start(): Promise<ColumnMeta[]> {
    const { conn } = this.session;
    await this.driver.setLimit(this.session, this.request.timeoutMs);
    if (this.readOnly) {
      await exec(conn, 'START TRANSACTION READ ONLY');
      this.inTransaction = true;
    }
    if (this.interrupted) throw new Error('cancelled before the statement started');
    const query = conn.query({ sql: this.request.text, values: this.request.values, rowsAsArray: true });
    query.on('fields', (fields?: MysqlField[]) => this.onFields(fields));
    query.on('result', (row: unknown, index?: number) => this.onRow(row, index ?? 0));
    query.on('error', (error: unknown) => this.signal(() => (this.error ??= error)));
    query.on('end', () => this.signal(() => (this.ended = true)));
    while (this.columns === null && !this.ended && this.error === null) await this.nextEvent();
    if (this.error !== null) throw this.error;
    return this.columns ?? [];
  }

  private onFields(fields: MysqlField[] | undefined): void {
    if (this.columns !== null) return; // a later result set (CALL): only the first one is read
    const types = (fields ?? []).map(mysqlType);
    this.converts = types.map((t) => t.convert);
    this.columns = (fields ?? []).map((f, i) => ({ name: f.name, dbType: types[i].name, kind: types[i].kind }));
    this.signal(() => {});
  }

  private onRow(row: unknown, index: number): void {
    if (index !== 0 || !Array.isArray(row) || this.discarding) return;
    const converts = this.converts;
    for (let i = 0; i < converts.length; i++) {
      const convert = converts[i];
      if (convert && row[i] !== null) row[i] = convert(row[i]);
    }
    this.current.push(row as Value[]);
    if (this.current.length >= this.request.batchSize) {
      this.ready.push(this.current);
      this.current = [];
      if (!this.paused) {
        this.paused = true;
        this.session.conn.pause();
      }
      this.signal(() => {});
    }
  }

  private signal(change: () => void): void {
    change();
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private nextEvent(): Promise<void> {
    return new Promise((resolve) => (this.wake = resolve));
  }

  private resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.session.conn.resume();
  }

  async pull(): Promise<Value[][] | null> {
    for (;;) {
      if (this.error !== null) throw this.error;
      const batch = this.ready.shift();
      if (batch) {
        if (this.ready.length === 0) this.resume();
        return batch;
      }
      if (this.ended) {
        if (this.current.length === 0) return null;
        const rows = this.current;
        this.current = [];
        return rows;
      }
      this.resume();
      await this.nextEvent();
    }
  }

  interrupt(): Promise<void> {
    this.interrupted = true;
    return this.driver.killQuery(this.session.conn.threadId);
  }

  /** Reads and drops the rest of the result for a short while; true when it ended in time. */
  private async drain(): Promise<boolean> {
    this.discarding = true;
    this.ready.length = 0;
    this.current = [];
    const deadline = Date.now() + DRAIN_BUDGET_MS;
    while (!this.ended && this.error === null) {
      this.resume();
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await Promise.race([this.nextEvent(), new Promise((r) => setTimeout(r, left).unref())]);
    }
    return this.error === null;
  }

  async finish(outcome: Outcome): Promise<void> {
    let reusable = !this.interrupted && !this.session.broken;
    try {
      const running = !this.ended && this.error === null && this.columns !== null;
      if (running && reusable && !(await this.drain())) {
        reusable = false;
        await this.driver.killQuery(this.session.conn.threadId);
      }
      if (this.inTransaction && reusable) await exec(this.session.conn, outcome === 'done' ? 'COMMIT' : 'ROLLBACK');
    } catch {
      reusable = false;
    }
    if (!reusable) this.session.broken = true;
    await this.driver.release(this.session, reusable);
  }
}
