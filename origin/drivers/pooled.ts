import type { SluiceError } from '../errors.ts';
import { cancelled, connectionFailed, queryFailed, timedOut, unreachable } from './failures.ts';
import { SessionPool } from './pool.ts';
import { createRedactor, passwordInUrl, type Redactor } from './redact.ts';
import type { CatalogComment, ConnectionSettings, Dialect, Driver, DriverEnv, RowCursor, RunRequest, SchemaListing, SqlDriverType } from './types.ts';
import { NO_SPAN, errorCode } from '../observability/tracing/span.ts';

/**
 * What every driver with a pool of sessions shares: the pool itself, sized
 * from the environment; catalog reads on a pooled session; the connection
 * test; and the mapping of what fails on the way to a redacted `SluiceError`.
 * An engine adds how a session opens, closes and what it is read through
 * (`H`), its catalog queries and its statements.
 */

/** An engine's catalog queries, each run on one session's handle. */
export interface SessionCatalog<H> {
  /** `database` is the one asked for, null for the connection's own. */
  schema(handle: H, database: string | null, maxColumns: number): Promise<SchemaListing>;
  databases(handle: H): Promise<string[]>;
  /** Table and column comments of the session's database; absent for an engine that keeps none. */
  comments?(handle: H): Promise<CatalogComment[]>;
  tableDdl(handle: H, table: string): Promise<string>;
  /** A trivial statement: the session answers. */
  ping(handle: H): Promise<unknown>;
}

/** Where a catalog read takes its session from and hands it back to: the pool, or a one-off session. */
export interface SessionSource<S> {
  acquire(): Promise<S>;
  release(session: S, reusable: boolean): Promise<void>;
}

export abstract class PooledDriver<S, H> implements Driver {
  abstract readonly type: SqlDriverType;
  abstract readonly dialect: Dialect;
  readonly redactor: Redactor;
  protected readonly pool: SessionPool<S>;
  protected abstract readonly catalog: SessionCatalog<H>;

  constructor(
    settings: ConnectionSettings,
    protected readonly env: DriverEnv,
  ) {
    this.redactor = createRedactor(settings.password, passwordInUrl(settings.options.jdbc_url));
    this.pool = new SessionPool<S>(
      { open: () => this.openSession(), destroy: (s) => this.destroySession(s), alive: (s) => this.sessionAlive(s) },
      { size: env.poolSize, max: env.poolMax, idleTimeoutMs: env.poolIdleTimeoutMs },
    );
  }

  abstract openSession(): Promise<S>;
  /** Must not throw: the session is being thrown away. */
  protected abstract destroySession(session: S): Promise<void>;
  /** What the catalog queries read through. */
  protected abstract handle(session: S): H;
  abstract run(request: RunRequest): Promise<RowCursor>;

  /** False when a session broke while it waited idle. */
  protected sessionAlive(_session: S): boolean {
    return true;
  }

  /** Whether a session whose catalog read failed may serve again; by default it is destroyed. */
  protected keepsSessionAfter(_error: unknown, _session: S): boolean {
    return false;
  }

  /** A statement's error as the client's. */
  protected statementFailed(error: unknown): SluiceError {
    return queryFailed(error, this.redactor);
  }

  /** Read-only when the request asks it or the server allows no writes. */
  protected readOnly(request: RunRequest): boolean {
    return request.readOnly || !this.env.allowWrites;
  }

  /**
   * A session for a caller's statement: one that cannot be opened means the
   * statement never ran. Waiting for a turn counts against the statement's
   * time limit, and ends when the client goes away.
   */
  protected async sessionForStatement(request: RunRequest): Promise<S> {
    let waitedTooLong = false;
    const onTimeout = () => {
      waitedTooLong = true;
      return timedOut(request.timeoutMs);
    };
    const waiting = (request.span ?? NO_SPAN).child('sluice.pool.wait', { 'sluice.pool.waiting': this.pool.waitingCount });
    try {
      return await this.pool.acquire({ signal: request.signal, timeoutMs: request.timeoutMs, onTimeout });
    } catch (error) {
      const failure = waitedTooLong ? error : request.signal.aborted ? cancelled() : unreachable(error, this.redactor);
      waiting.fail(errorCode(failure));
      throw failure;
    } finally {
      waiting.end();
    }
  }

  /**
   * A session for the push-down, or null: `run()` then reports whatever
   * keeps one from opening. A wait cut by the time limit or the client is
   * thrown as `sessionForStatement` throws it.
   */
  protected async sessionOrNull(request: RunRequest): Promise<S | null> {
    try {
      return await this.sessionForStatement(request);
    } catch (error) {
      if (request.signal.aborted || (error as SluiceError).code === 'timeout') throw error;
      return null;
    }
  }

  release(session: S, reusable: boolean): Promise<void> {
    return this.pool.release(session, reusable);
  }

  /** Hands a session back once `reset` says whether it may serve again (pool.ts, `releaseAfter`). */
  releaseAfter(session: S, reset: Promise<boolean>): Promise<void> {
    return this.pool.releaseAfter(session, reset);
  }

  /** Where catalog reads on `database` take their session: the pool unless an engine reads another database elsewhere. */
  protected sessionsFor(_database: string | undefined): SessionSource<S> {
    return this.pool;
  }

  /** Catalog reads: only the driver's own SQL runs, so the session goes back as it is. */
  protected async withSession<T>(work: (handle: H) => Promise<T>, source: SessionSource<S> = this.pool): Promise<T> {
    let session: S;
    try {
      session = await source.acquire();
    } catch (error) {
      throw connectionFailed(error, this.redactor);
    }
    let reusable = true;
    try {
      return await work(this.handle(session));
    } catch (error) {
      reusable = this.keepsSessionAfter(error, session);
      throw this.statementFailed(error);
    } finally {
      await source.release(session, reusable);
    }
  }

  schema(options: { database?: string; maxColumns: number }): Promise<SchemaListing> {
    const read = (handle: H) => this.catalog.schema(handle, options.database ?? null, options.maxColumns);
    return this.withSession(read, this.sessionsFor(options.database));
  }

  databases(): Promise<string[]> {
    return this.withSession((handle) => this.catalog.databases(handle)).catch((error) =>
      Promise.reject(connectionFailed(error, this.redactor)),
    );
  }

  comments(): Promise<CatalogComment[] | null> {
    const read = this.catalog.comments;
    if (!read) return Promise.resolve(null);
    return this.withSession((handle) => read.call(this.catalog, handle));
  }

  tableDdl(table: string): Promise<string> {
    return this.withSession((handle) => this.catalog.tableDdl(handle, table));
  }

  async test(): Promise<void> {
    await this.withSession((handle) => this.catalog.ping(handle)).catch((error) =>
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
