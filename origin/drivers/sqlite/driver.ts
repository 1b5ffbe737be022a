import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { SluiceError } from '../../errors.ts';
import type { Value, ValueKind } from '../../values.ts';
import { openCursor, type Outcome, type StatementSource } from '../cursor.ts';
import { connectionFailed, queryFailed, sessionLost, unreachable } from '../failures.ts';
import { SessionPool } from '../pool.ts';
import { createRedactor, type Redactor } from '../redact.ts';
import { buildListing } from '../schema-listing.ts';
import { workerSource, type WorkerData, type WorkerReply, type WorkerRequest } from './worker.ts';
import type { ColumnMeta, ConnectionSettings, Driver, DriverEnv, RowCursor, RunRequest, SchemaListing } from '../types.ts';

const DRIVER_PATH = createRequire(import.meta.url).resolve('better-sqlite3');

/** One session is one child process holding the database handles (see sqlite-worker.ts). */
class SqliteSession {
  private pending: { resolve: (reply: WorkerReply) => void; reject: (error: Error) => void } | null = null;
  private readonly exited: Promise<void>;
  alive = true;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (reply: WorkerReply) => {
      const pending = this.pending;
      this.pending = null;
      this.child.channel?.unref();
      pending?.resolve(reply);
    });
    const fail = (error: Error) => {
      this.alive = false;
      const pending = this.pending;
      this.pending = null;
      pending?.reject(error);
    };
    child.on('error', fail);
    this.exited = new Promise((resolve) =>
      child.on('exit', () => {
        fail(sessionLost('The SQLite session ended'));
        resolve();
      }),
    );
    // Idle sessions must not keep the server's process alive; `call` holds it while waiting.
    child.unref();
  }

  static async open(database: string): Promise<SqliteSession> {
    const data: WorkerData = { driverPath: DRIVER_PATH, database };
    const child = spawn(process.execPath, ['-e', workerSource, JSON.stringify(data)], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    const session = new SqliteSession(child);
    try {
      await session.wait();
    } catch (error) {
      await session.terminate();
      throw error;
    }
    return session;
  }

  /** Sends one request and waits for its reply; an `error` reply rejects. */
  call(request: WorkerRequest): Promise<WorkerReply> {
    if (!this.alive) return Promise.reject(sessionLost('The SQLite session has ended'));
    const reply = this.wait();
    this.child.send(request);
    return reply;
  }

  private async wait(): Promise<WorkerReply> {
    this.child.channel?.ref();
    const reply = await new Promise<WorkerReply>((resolve, reject) => (this.pending = { resolve, reject }));
    if (reply.type === 'error') throw Object.assign(new Error(reply.message), { code: reply.code ?? 'SQLITE_ERROR' });
    return reply;
  }

  /** Kills the process: the only way to stop a synchronous SQLite statement. */
  async terminate(): Promise<void> {
    this.alive = false;
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.ref(); // until its exit is seen, or the server could stop waiting for it
      this.child.kill('SIGKILL');
    }
    await this.exited;
  }
}

/** Column kind from the declared type's affinity (SQLite's own rules, in order). */
export function affinityKind(declared: string | null): ValueKind {
  if (!declared) return 'unknown';
  const type = declared.toUpperCase();
  if (type.includes('INT')) return 'integer';
  if (type.includes('CHAR') || type.includes('CLOB') || type.includes('TEXT')) return 'text';
  if (type.includes('BLOB')) return 'binary';
  if (type.includes('REAL') || type.includes('FLOA') || type.includes('DOUB')) return 'float';
  return 'unknown';
}

/** better-sqlite3 binds numbers, strings, bigints, buffers and null only. */
function bindable(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

const SCHEMA_SQL = `
select m.name, m.type, p.name, p.type, p."notnull"
  from sqlite_master m join pragma_table_info(m.name) p
 where m.type in ('table', 'view') and m.name not like 'sqlite_%'
 order by m.name, p.cid
 limit ?`;

export class SqliteDriver implements Driver {
  readonly type = 'sqlite' as const;
  readonly dialect = 'sqlite' as const;
  readonly redactor: Redactor;
  private readonly database: string;
  private readonly pool: SessionPool<SqliteSession>;

  constructor(
    settings: ConnectionSettings,
    private readonly env: DriverEnv,
  ) {
    this.redactor = createRedactor(settings.password);
    const database = settings.database ?? ':memory:';
    this.database = database === ':memory:' ? database : resolve(database);
    this.pool = new SessionPool<SqliteSession>(
      { open: () => SqliteSession.open(this.database), destroy: (s) => s.terminate(), alive: (s) => s.alive },
      { size: env.poolSize, idleTimeoutMs: env.poolIdleTimeoutMs },
    );
  }

  async run(request: RunRequest): Promise<RowCursor> {
    const fail = (error: unknown) => queryFailed(error, this.redactor);
    const session = await this.pool.acquire().catch((error: unknown) => Promise.reject(unreachable(error, this.redactor)));
    const write = this.env.allowWrites && !request.readOnly;
    return openCursor(new SqliteStatement(this.pool, session, request, write), { request, fail });
  }

  private async all(text: string, values: unknown[], failure: (error: unknown) => SluiceError): Promise<unknown[][]> {
    let session: SqliteSession;
    try {
      session = await this.pool.acquire();
    } catch (error) {
      throw connectionFailed(error, this.redactor);
    }
    try {
      const reply = await session.call({ op: 'all', text, values });
      return reply.type === 'rows' ? reply.rows : [];
    } catch (error) {
      throw failure(error);
    } finally {
      await this.pool.release(session, session.alive);
    }
  }

  async schema(options: { database?: string; maxColumns: number }): Promise<SchemaListing> {
    const rows = await this.all(SCHEMA_SQL, [options.maxColumns + 1], (e) => queryFailed(e, this.redactor));
    return buildListing(
      rows.map(([table, kind, column, type, notNull]) => ({
        table: String(table),
        kind: String(kind),
        column: String(column),
        type: String(type ?? ''),
        nullable: !notNull,
      })),
      options.maxColumns,
    );
  }

  async databases(): Promise<string[]> {
    await this.test();
    return ['main'];
  }

  async tableDdl(table: string): Promise<string> {
    const sql = "select sql from sqlite_master where type in ('table', 'view') and name = ? and sql is not null";
    const rows = await this.all(sql, [table], (e) => queryFailed(e, this.redactor));
    if (!rows.length) throw new SluiceError('not_found', `Table ${table} was not found`);
    const ddl = String(rows[0][0]).trim();
    return `${ddl.endsWith(';') ? ddl : `${ddl};`}\n`;
  }

  async test(): Promise<void> {
    await this.all('select 1', [], (e) => connectionFailed(e, this.redactor));
  }

  idleSessions(): number {
    return this.pool.idleCount;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** One statement; each batch is one request to the worker, so the worker never runs ahead of the reader. */
class SqliteStatement implements StatementSource {
  private done = false;
  private interrupted = false;

  constructor(
    private readonly pool: SessionPool<SqliteSession>,
    private readonly session: SqliteSession,
    private readonly request: RunRequest,
    private readonly write: boolean,
  ) {}

  async start(): Promise<ColumnMeta[]> {
    const values = this.request.values.map(bindable);
    const reply = await this.session.call({ op: 'run', text: this.request.text, values, write: this.write });
    if (reply.type !== 'columns') throw sessionLost('Unexpected reply from the SQLite session');
    this.done = reply.done;
    return reply.columns.map((c) => ({ name: c.name, dbType: c.declaredType ?? '', kind: affinityKind(c.declaredType) }));
  }

  async pull(): Promise<Value[][] | null> {
    if (this.done) return null;
    const reply = await this.session.call({ op: 'next', size: Math.max(1, this.request.batchSize) });
    if (reply.type !== 'batch') throw sessionLost('Unexpected reply from the SQLite session');
    this.done = reply.done;
    return reply.rows.length ? (reply.rows as Value[][]) : null;
  }

  interrupt(): Promise<void> {
    this.interrupted = true;
    return this.session.terminate();
  }

  async finish(_outcome: Outcome): Promise<void> {
    let reusable = !this.interrupted && this.session.alive;
    if (reusable && !this.done) {
      try {
        await this.session.call({ op: 'end' });
      } catch {
        reusable = false;
      }
    }
    await this.pool.release(this.session, reusable);
  }
}
