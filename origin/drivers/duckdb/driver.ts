import { availableParallelism } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { openCursor } from '../cursor.ts';
import { duckDatabases, duckSchema, duckTableDdl } from './catalog.ts';
import { connectSession, leaseInstance, type InstanceLease, type InstanceSpec } from './instances.ts';
import { duckLinePlan } from './lines.ts';
import { DuckPipeLines, pipeAvailable } from './pipe.ts';
import { plansAsStream } from './scan-tasks.ts';
import { DuckLines, DuckRows } from './statement.ts';
import { connectionFailed, queryFailed, unreachable } from '../failures.ts';
import { SessionPool } from '../pool.ts';
import { createRedactor, type Redactor } from '../redact.ts';
import type {
  ColumnMeta,
  ConnectionSettings,
  Driver,
  DriverEnv,
  LineFormat,
  LineStream,
  RowCursor,
  RunRequest,
  SchemaListing,
} from '../types.ts';

/**
 * One session is one DuckDB connection. After a caller's statement it gets a
 * new connection (`renew`): whatever the statement changed in the old one
 * goes with it.
 */
interface DuckSession {
  connection: DuckDBConnection;
  instance: DuckDBInstance;
  /** The instance generation it was opened on: sessions of a discarded instance are never reused. */
  generation: number;
}

/** DuckDB's words for an internal error, after which the instance refuses every statement. */
const INVALIDATED = /INTERNAL Error|database has been invalidated/i;

const DEFAULT_THREADS = 1;
/**
 * A streamed stream runs on an instance of its own (duckdb-pipe.ts), so it
 * may use more threads than the connection's lookups, for which a second
 * thread only adds scheduling (~20% more CPU per one-row query). Past ~4
 * threads the origin's one thread writing to the client is the limit.
 */
const DEFAULT_STREAM_THREADS = Math.min(availableParallelism(), 4);
const DEFAULT_MEMORY_LIMIT = '512MB';

function instanceSpec(settings: ConnectionSettings, env: DriverEnv): InstanceSpec {
  const options = settings.options;
  const database = settings.database && settings.database !== ':memory:' ? resolve(settings.database) : null;
  const files: Record<string, string> = {};
  const configured = options.files;
  if (configured && typeof configured === 'object') {
    for (const [name, path] of Object.entries(configured as Record<string, unknown>)) {
      const text = String(path);
      files[name] = isAbsolute(text) ? text : resolve(text);
    }
  }
  return {
    path: database,
    readOnly: !env.allowWrites,
    threads: Number(options.threads ?? DEFAULT_THREADS),
    memoryLimit: String(options.memory_limit ?? DEFAULT_MEMORY_LIMIT),
    files,
  };
}

export class DuckdbDriver implements Driver {
  readonly type = 'duckdb' as const;
  readonly dialect = 'duckdb' as const;
  readonly redactor: Redactor;
  private readonly spec: InstanceSpec;
  /** The spec of a pipe stream's own instance: `stream_threads` threads (`export_threads`, its first name, is still read). */
  private readonly streamSpec: InstanceSpec;
  private readonly pool: SessionPool<DuckSession>;
  private lease: Promise<InstanceLease> | null = null;
  private openSessions = 0;
  private generation = 0;
  private closed = false;

  constructor(settings: ConnectionSettings, env: DriverEnv) {
    this.redactor = createRedactor(settings.password);
    this.spec = instanceSpec(settings, env);
    this.streamSpec = { ...this.spec, threads: Number(settings.options.stream_threads ?? settings.options.export_threads ?? DEFAULT_STREAM_THREADS) };
    this.pool = new SessionPool<DuckSession>(
      {
        open: () => this.openSession(),
        destroy: async (s) => this.closeSession(s),
        alive: (s) => s.generation === this.generation,
      },
      { size: env.poolSize, idleTimeoutMs: env.poolIdleTimeoutMs },
    );
  }

  /** True when the database itself refuses writes (a file opened READ_ONLY). */
  get readOnlyInstance(): boolean {
    return this.spec.readOnly && this.spec.path !== null;
  }

  private async openSession(): Promise<DuckSession> {
    if (!this.lease) {
      const lease = leaseInstance(this.spec);
      this.lease = lease;
      lease.catch(() => {
        if (this.lease === lease) this.lease = null;
      });
    }
    const generation = this.generation;
    const { instance } = await this.lease;
    const connection = await connectSession(instance, this.spec);
    this.openSessions++;
    return { connection, instance, generation };
  }

  /**
   * A caller's statement may have changed anything in its connection; many
   * of those changes (the random seed, profiling, variables, ATTACH, USE,
   * prepared statements) no rollback undoes, and no statement lists them.
   * A new connection costs less than one statement.
   */
  private async renew(session: DuckSession, reusable: boolean): Promise<void> {
    if (reusable && session.generation === this.generation) {
      try {
        session.connection.closeSync();
        session.connection = await connectSession(session.instance, this.spec);
      } catch {
        reusable = false;
      }
    } else reusable = false;
    await this.pool.release(session, reusable);
  }

  private closeSession(session: DuckSession): void {
    try {
      session.connection.closeSync();
    } catch {
      // its instance was discarded
    }
    this.openSessions--;
    this.releaseInstanceWhenIdle();
  }

  private releaseInstanceWhenIdle(): void {
    if (!this.closed || this.openSessions > 0 || !this.lease) return;
    const lease = this.lease;
    this.lease = null;
    lease.then((l) => l.release()).catch(() => {});
  }

  /** One bad statement must not take the connection down until a restart: reopen the instance. */
  private recoverFrom(error: unknown): void {
    if (!INVALIDATED.test(String((error as Error)?.message ?? error))) return;
    const lease = this.lease;
    this.lease = null;
    this.generation++;
    lease?.then((l) => l.discard()).catch(() => {});
  }

  async run(request: RunRequest): Promise<RowCursor> {
    const session = await this.pool.acquire().catch((error: unknown) => Promise.reject(unreachable(error, this.redactor)));
    return openCursor(new DuckRows(session.connection, request, this.readTransaction(request), this.releaser(session)), { request, fail: this.failed });
  }

  /** A statement's error as the client's: a broken instance is reopened first. */
  private readonly failed = (error: unknown) => {
    this.recoverFrom(error);
    return queryFailed(error, this.redactor);
  };

  /**
   * Serialization push-down (duckdb-lines.ts): DuckDB renders the finished
   * lines itself, or null. From a READ_ONLY file, without parameters (COPY
   * takes none), and while a pipe is free, DuckDB also writes them
   * (duckdb-pipe.ts); otherwise they are fetched one string per row.
   */
  async streamLines(request: RunRequest, format: LineFormat): Promise<LineStream | null> {
    let session: DuckSession;
    try {
      session = await this.pool.acquire();
    } catch {
      return null;
    }
    // Only prepared and explained here, but binding a caller's text runs its table functions' binders: renewed all the same.
    const plan = await duckLinePlan(session.connection, request, format);
    if (!plan) {
      await this.renew(session, true);
      return null;
    }
    const piped = request.values.length === 0;
    // Planned before the pipe is taken: between pipeAvailable and the source's construction nothing may wait.
    const fineTasks = piped && this.streamSpec.threads > 1 && (await plansAsStream(session.connection, plan.text));
    if (piped && (await pipeAvailable(this.streamSpec))) {
      const source = new DuckPipeLines(this.streamSpec, plan, format, fineTasks);
      await this.renew(session, true);
      return openCursor(source, { request, fail: (error) => queryFailed(error, this.redactor) });
    }
    const rendered = { ...request, text: plan.text };
    const source = new DuckLines(plan.columns, format, session.connection, rendered, this.readTransaction(request), this.releaser(session));
    return openCursor(source, { request, fail: this.failed });
  }

  /** A READ_ONLY file needs no more; elsewhere reads run in a read-only transaction. */
  private readTransaction(request: RunRequest): boolean {
    return (request.readOnly || this.spec.readOnly) && !this.readOnlyInstance;
  }

  private releaser(session: DuckSession) {
    return (reusable: boolean) => this.renew(session, reusable);
  }

  /** Catalog reads: only the driver's own SQL runs, so the session goes back as it is. */
  private async withSession<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    let session: DuckSession;
    try {
      session = await this.pool.acquire();
    } catch (error) {
      throw connectionFailed(error, this.redactor);
    }
    let reusable = true;
    try {
      return await work(session.connection);
    } catch (error) {
      reusable = false;
      this.recoverFrom(error);
      throw queryFailed(error, this.redactor);
    } finally {
      await this.pool.release(session, reusable);
    }
  }

  schema(options: { database?: string; maxColumns: number }): Promise<SchemaListing> {
    return this.withSession((connection) => duckSchema(connection, options.database ?? null, options.maxColumns));
  }

  databases(): Promise<string[]> {
    return this.withSession(duckDatabases).catch((error) => Promise.reject(connectionFailed(error, this.redactor)));
  }

  tableDdl(table: string): Promise<string> {
    return this.withSession((connection) => duckTableDdl(connection, table));
  }

  async test(): Promise<void> {
    await this.withSession((connection) => connection.run('SELECT 1')).catch((error) =>
      Promise.reject(connectionFailed(error, this.redactor)),
    );
  }

  idleSessions(): number {
    return this.pool.idleCount;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.pool.close();
    this.releaseInstanceWhenIdle();
  }
}
