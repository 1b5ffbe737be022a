import { isAbsolute, resolve } from 'node:path';
import type { DuckDBConnection, DuckDBDataChunk, DuckDBResult, DuckDBValue } from '@duckdb/node-api';
import type { Value } from '../values.ts';
import { openCursor, type Outcome, type StatementSource } from './cursor.ts';
import { duckDatabases, duckSchema, duckTableDdl } from './duckdb-catalog.ts';
import { createFileViews, leaseInstance, type InstanceLease, type InstanceSpec } from './duckdb-instances.ts';
import { duckRenderLines } from './duckdb-lines.ts';
import { duckType, type DuckColumnType } from './duckdb-types.ts';
import { connectionFailed, queryFailed, unreachable } from './failures.ts';
import { collectYoungGarbage } from './native-memory.ts';
import { SessionPool } from './pool.ts';
import { createRedactor, type Redactor } from './redact.ts';
import type {
  ColumnMeta,
  ConnectionSettings,
  Driver,
  DriverEnv,
  LineFormat,
  LineStatement,
  RowCursor,
  RunRequest,
  SchemaListing,
} from './types.ts';

/** One session is one DuckDB connection, with the configured files as temporary views. */
interface DuckSession {
  connection: DuckDBConnection;
  /** The instance generation it was opened on: sessions of a discarded instance are never reused. */
  generation: number;
}

/** DuckDB's words for an internal error, after which the instance refuses every statement. */
const INVALIDATED = /INTERNAL Error|database has been invalidated/i;

/** Chunks (2,048 rows each) between collections of the dead ones' native memory (native-memory.ts). */
const CHUNKS_PER_COLLECTION = 8;
const DEFAULT_THREADS = 1;
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
  private readonly pool: SessionPool<DuckSession>;
  private lease: Promise<InstanceLease> | null = null;
  private openSessions = 0;
  private generation = 0;
  private closed = false;

  constructor(settings: ConnectionSettings, env: DriverEnv) {
    this.redactor = createRedactor(settings.password);
    this.spec = instanceSpec(settings, env);
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
    const { instance } = await this.lease;
    const connection = await instance.connect();
    this.openSessions++;
    const session = { connection, generation: this.generation };
    try {
      await createFileViews(connection, this.spec.files);
    } catch (error) {
      this.closeSession(session);
      throw error;
    }
    return session;
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
    const fail = (error: unknown) => {
      this.recoverFrom(error);
      return queryFailed(error, this.redactor);
    };
    const session = await this.pool.acquire().catch((error: unknown) => Promise.reject(unreachable(error, this.redactor)));
    // A READ_ONLY file needs no more; elsewhere reads run in a read-only transaction.
    const readTransaction = (request.readOnly || this.spec.readOnly) && !this.readOnlyInstance;
    return openCursor(new DuckStatement(this.pool, session, request, readTransaction), { request, fail });
  }

  /** Serialization push-down (duckdb-lines.ts): the statement rewritten to return finished lines, or null. */
  async renderLines(request: RunRequest, format: LineFormat): Promise<LineStatement | null> {
    let session: DuckSession;
    try {
      session = await this.pool.acquire();
    } catch {
      return null;
    }
    try {
      return await duckRenderLines(session.connection, request, format);
    } finally {
      await this.pool.release(session, true);
    }
  }

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

/** One statement streamed chunk by chunk (`fetchChunk`), converted column by column. */
class DuckStatement implements StatementSource {
  private result: DuckDBResult | null = null;
  private types: DuckColumnType[] = [];
  private pending: Value[][] = [];
  private chunks = 0;
  private exhausted = false;
  private interrupted = false;
  private inTransaction = false;

  constructor(
    private readonly pool: SessionPool<DuckSession>,
    private readonly session: DuckSession,
    private readonly request: RunRequest,
    private readonly readTransaction: boolean,
  ) {}

  async start(): Promise<ColumnMeta[]> {
    const { connection } = this.session;
    if (this.readTransaction) {
      await connection.run('BEGIN TRANSACTION READ ONLY');
      this.inTransaction = true;
    }
    if (this.interrupted) throw new Error('cancelled before the statement started');
    const values = this.request.values as DuckDBValue[];
    this.result = await connection.stream(this.request.text, values.length ? values : undefined);
    const names = this.result.columnNames();
    this.types = this.result.columnTypes().map(duckType);
    return names.map((name, i) => ({ name, dbType: this.types[i].name, kind: this.types[i].kind }));
  }

  async pull(): Promise<Value[][] | null> {
    const size = Math.max(1, this.request.batchSize);
    while (this.pending.length < size && !this.exhausted) {
      const chunk = await this.result!.fetchChunk();
      if (++this.chunks % CHUNKS_PER_COLLECTION === 0) collectYoungGarbage();
      if (!chunk || chunk.rowCount === 0) this.exhausted = true;
      else this.append(chunk);
    }
    if (this.pending.length === 0) return null;
    if (this.pending.length <= size) {
      const rows = this.pending;
      this.pending = [];
      return rows;
    }
    const rows = this.pending.slice(0, size);
    this.pending = this.pending.slice(size);
    return rows;
  }

  /** Column-wise conversion: one vector at a time, each with its column's converter. */
  private append(chunk: DuckDBDataChunk): void {
    const count = chunk.rowCount;
    const width = this.types.length;
    const rows: Value[][] = new Array(count);
    for (let r = 0; r < count; r++) rows[r] = new Array(width);
    for (let c = 0; c < width; c++) {
      const vector = chunk.getColumnVector(c);
      const convert = this.types[c].convert;
      for (let r = 0; r < count; r++) {
        const item = vector.getItem(r);
        rows[r][c] = item === null ? null : convert ? convert(item) : (item as Value);
      }
    }
    for (const row of rows) this.pending.push(row);
  }

  interrupt(): void {
    this.interrupted = true;
    this.session.connection.interrupt();
  }

  async finish(outcome: Outcome): Promise<void> {
    let reusable = !this.interrupted;
    this.result = null;
    this.pending = [];
    try {
      if (this.inTransaction) await this.session.connection.run(outcome === 'failed' ? 'ROLLBACK' : 'COMMIT');
    } catch {
      reusable = false;
    }
    await this.pool.release(this.session, reusable);
  }
}
