import { availableParallelism } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { SluiceError } from '../../errors.ts';
import { openCursor } from '../cursor.ts';
import { duckCatalog } from './catalog.ts';
import { connectSession, leaseInstance, type InstanceLease, type InstanceSpec } from './instances.ts';
import { duckLinePlan } from './lines.ts';
import { DuckParquetFile, PARQUET_FILE_THREADS } from './parquet-file.ts';
import { DuckPipeLines, pipeAvailable } from './pipe.ts';
import { plansAsStream } from './scan-tasks.ts';
import { DuckLines, DuckRows } from './statement.ts';
import { queryFailed } from '../failures.ts';
import { PooledDriver } from '../pooled.ts';
import type { ConnectionSettings, DriverEnv, LineFormat, LineStream, ParquetOptions, ParquetStream, RowCursor, RunRequest } from '../types.ts';

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

export class DuckdbDriver extends PooledDriver<DuckSession, DuckDBConnection> {
  readonly type = 'duckdb' as const;
  readonly dialect = 'duckdb' as const;
  protected readonly catalog = duckCatalog;
  private readonly spec: InstanceSpec;
  /** The spec of a pipe stream's own instance: `stream_threads` threads (`export_threads`, its first name, is still read). */
  private readonly streamSpec: InstanceSpec;
  private lease: Promise<InstanceLease> | null = null;
  private openSessions = 0;
  private generation = 0;
  private closed = false;

  constructor(settings: ConnectionSettings, env: DriverEnv) {
    super(settings, env);
    this.spec = instanceSpec(settings, env);
    this.streamSpec = { ...this.spec, threads: Number(settings.options.stream_threads ?? settings.options.export_threads ?? DEFAULT_STREAM_THREADS) };
  }

  /** True when the database itself refuses writes (a file opened READ_ONLY). */
  get readOnlyInstance(): boolean {
    return this.spec.readOnly && this.spec.path !== null;
  }

  async openSession(): Promise<DuckSession> {
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

  protected handle(session: DuckSession): DuckDBConnection {
    return session.connection;
  }

  protected override sessionAlive(session: DuckSession): boolean {
    return session.generation === this.generation;
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

  protected async destroySession(session: DuckSession): Promise<void> {
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
    const session = await this.sessionForStatement(request);
    return openCursor(new DuckRows(session.connection, request, this.readTransaction(request), this.releaser(session)), { request, fail: this.failed });
  }

  /** A broken instance is reopened first. */
  protected override statementFailed(error: unknown): SluiceError {
    this.recoverFrom(error);
    return super.statementFailed(error);
  }

  private readonly failed = (error: unknown) => this.statementFailed(error);

  /**
   * Serialization push-down (duckdb-lines.ts): DuckDB renders the finished
   * lines itself, or null. From a READ_ONLY file, without parameters (COPY
   * takes none), and while a pipe is free, DuckDB also writes them
   * (duckdb-pipe.ts); otherwise they are fetched one string per row.
   */
  async streamLines(request: RunRequest, format: LineFormat): Promise<LineStream | null> {
    const session = await this.sessionOrNull(request);
    if (!session) return null;
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

  /**
   * Parquet push-down (parquet-file.ts): DuckDB writes the file, typed as
   * the JS writer types it, on an instance of its own; so only from a
   * READ_ONLY file, and while a COPY slot is free. Null otherwise, or when
   * a column or a value met while writing is one the JS writer types
   * differently.
   */
  async streamParquet(request: RunRequest, options: ParquetOptions): Promise<ParquetStream | null> {
    // Between pipeAvailable and the source's construction nothing may wait.
    if (!(await pipeAvailable(this.streamSpec))) return null;
    const source = new DuckParquetFile({ ...this.streamSpec, threads: PARQUET_FILE_THREADS }, request, options.rowGroupRows, options.path ?? null, options.chunkRows ?? null);
    const cursor = await openCursor(source, { request, fail: (error) => queryFailed(error, this.redactor) });
    if (source.declined) {
      await cursor.close();
      return null;
    }
    return { columns: cursor.columns, batches: cursor.batches, close: () => cursor.close(), rows: source.rows, path: source.path!, files: source.files };
  }

  /** A READ_ONLY file needs no more; elsewhere reads run in a read-only transaction. */
  private readTransaction(request: RunRequest): boolean {
    return this.readOnly(request) && !this.readOnlyInstance;
  }

  private releaser(session: DuckSession) {
    return (reusable: boolean) => this.renew(session, reusable);
  }

  override async close(): Promise<void> {
    this.closed = true;
    await super.close();
    this.releaseInstanceWhenIdle();
  }
}
