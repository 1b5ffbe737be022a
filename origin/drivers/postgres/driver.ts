import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import type { Value } from '../../values.ts';
import { openCursor, type Outcome, type StatementSource } from '../cursor.ts';
import { pgCatalog } from './catalog.ts';
import { PgLines } from './lines.ts';
import { afterEnd, DBLINK_SCHEMA, endText, endTransaction, type PgResetSession } from './reset.ts';
import { pgType, TYPE_CATALOG_SQL, type Convert, type PgCatalogType, type PgType } from './types.ts';
import { PooledDriver, type SessionSource } from '../pooled.ts';
import type { ColumnMeta, ConnectionSettings, DriverEnv, LineFormat, LineStream, RowCursor, RunRequest } from '../types.ts';

/** One session is one postgres.js instance holding a single connection. */
export interface PgSession extends PgResetSession {
  /** The texts of the statements prepared on it (`send`). */
  prepared: Set<string>;
}

/** Statements one session keeps prepared: ad-hoc SQL could otherwise grow the server's memory and postgres.js's without end. */
const PREPARED_PER_SESSION = 64;

type ValuesQuery = postgres.PendingValuesQuery<postgres.Row[]> & {
  statement?: { columns?: { type: number; name: string }[] | null };
};

function sslOption(options: Record<string, unknown>): postgres.Options<{}>['ssl'] {
  const mode = String(options.sslmode ?? 'prefer');
  const ca = typeof options.sslrootcert === 'string' ? readFileSync(options.sslrootcert, 'utf8') : undefined;
  switch (mode) {
    case 'disable':
      return false;
    case 'allow':
    case 'prefer':
    case 'require':
      return ca ? { ca, rejectUnauthorized: false } : mode;
    case 'verify-ca':
      return { ca, rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case 'verify-full':
      return ca ? { ca, rejectUnauthorized: true } : 'verify-full';
    default:
      throw new Error(`Unknown sslmode "${mode}"`);
  }
}

export class PostgresDriver extends PooledDriver<PgSession, postgres.Sql> {
  readonly type = 'postgres' as const;
  readonly dialect = 'postgres' as const;
  protected readonly catalog = pgCatalog;
  private typeCatalog = new Map<number, PgCatalogType>();
  private typeCatalogStale = true;

  constructor(
    private readonly settings: ConnectionSettings,
    env: DriverEnv,
  ) {
    super(settings, env);
  }

  /** Opens a session; `database` overrides the connection's for a one-off look at another database. */
  async openSession(database?: string): Promise<PgSession> {
    const { settings } = this;
    const options = settings.options;
    const sql = postgres({
      host: settings.host ?? '127.0.0.1',
      port: settings.port ?? 5432,
      user: settings.user ?? undefined,
      password: settings.password ?? undefined,
      database: database ?? settings.database ?? undefined,
      max: 1,
      // Allowed here so that a statement may ask for it: every `unsafe` call is unprepared unless it says otherwise (PgStatement.send).
      prepare: true,
      fetch_types: false,
      connect_timeout: Number(options.connect_timeout ?? 10),
      ssl: sslOption(options),
      onnotice: () => {},
      connection: {
        application_name: String(options.application_name ?? 'sluice'),
        DateStyle: 'ISO, YMD',
        TimeZone: 'UTC',
        IntervalStyle: 'postgres',
        bytea_output: 'hex',
        extra_float_digits: 3,
        ...(options.search_path ? { search_path: String(options.search_path) } : {}),
        // A server without writes: every transaction of the session is read-only unless it says otherwise, and none does.
        ...(this.sessionsReadOnly ? { default_transaction_read_only: 'on' } : {}),
      } as unknown as Record<string, string>,
    });
    // Every value arrives as the server's text; pg-types.ts converts it exactly.
    for (const oid of Object.keys(sql.options.parsers)) delete sql.options.parsers[Number(oid)];
    const session: PgSession = { sql, dblink: null, prepared: new Set() };
    try {
      const [[dblink]] = (await sql.unsafe(`select ${DBLINK_SCHEMA}`).values()) as unknown as [[string | null]];
      session.dblink = dblink;
    } catch (error) {
      await closeSession(session);
      throw error;
    }
    return session;
  }

  protected destroySession(session: PgSession): Promise<void> {
    return closeSession(session);
  }

  protected handle(session: PgSession): postgres.Sql {
    return session.sql;
  }

  /** Another database than the connection's is read on a session opened for the look and closed after it. */
  protected override sessionsFor(database: string | undefined): SessionSource<PgSession> {
    if (database === undefined || database === (this.settings.database ?? undefined)) return this.pool;
    return { acquire: () => this.openSession(database), release: (session) => closeSession(session) };
  }

  /** Sessions read-only by default (SLUICE_ALLOW_WRITES off): a read's BEGIN may then be pipelined with its statement. */
  get sessionsReadOnly(): boolean {
    return !this.env.allowWrites;
  }

  async run(request: RunRequest): Promise<RowCursor> {
    const fail = (error: unknown) => this.statementFailed(error);
    const session = await this.sessionForStatement(request);
    if (this.typeCatalogStale) {
      try {
        await this.loadTypeCatalog(session);
      } catch (error) {
        await this.pool.release(session, false);
        throw fail(error);
      }
    }
    return openCursor(new PgStatement(this, session, request, this.readOnly(request)), { request, fail, isTimeout: isStatementTimeout });
  }

  /**
   * The push-down (pg-render.ts, pg-lines.ts): PostgreSQL writes each row as
   * the finished line and streams it with binary COPY. Null, having run
   * nothing, for parameters, a column type without an exact rendering, or a
   * statement that cannot be described or wrapped.
   */
  async streamLines(request: RunRequest, format: LineFormat): Promise<LineStream | null> {
    if (request.values.length > 0) return null;
    const session = await this.sessionOrNull(request);
    if (!session) return null;
    const source = new PgLines(session, request, format, this.readOnly(request), (oids) => this.typesOf(oids), (reusable) =>
      this.pool.release(session, reusable),
    );
    if (!(await source.plan())) {
      await source.finish('failed', false);
      return null;
    }
    return openCursor(source, { request, fail: (error) => this.statementFailed(error), isTimeout: isStatementTimeout });
  }

  private async loadTypeCatalog(session: PgSession): Promise<void> {
    const rows = await session.sql.unsafe(TYPE_CATALOG_SQL).values();
    const catalog = new Map<number, PgCatalogType>();
    for (const [oid, name, typtype, base, elem, category] of rows as unknown as string[][]) {
      catalog.set(Number(oid), { name, typtype, base: Number(base), elem: Number(elem), category });
    }
    this.typeCatalog = catalog;
    this.typeCatalogStale = false;
  }

  /** The types of a statement's columns; an OID the catalog lacks marks it for reloading. */
  typesOf(oids: number[]): PgType[] {
    return oids.map((oid) => {
      const type = pgType(oid, this.typeCatalog);
      if (type.kind === 'unknown' && !this.typeCatalog.has(oid)) this.typeCatalogStale = true;
      return type;
    });
  }
}

/** A prepared statement the server no longer has, or whose result a table's change altered: postgres.js drops it, a new run prepares it again. */
function isStalePlan(error: unknown): boolean {
  const { code, routine } = error as { code?: string; routine?: string };
  return (code === '0A000' && routine === 'RevalidateCachedQuery') || (code === '26000' && routine === 'FetchPreparedStatement');
}

function isStatementTimeout(error: unknown): boolean {
  return (error as { code?: string }).code === '57014' && /statement timeout/.test((error as Error).message);
}

async function closeSession(session: PgSession): Promise<void> {
  await session.sql.end({ timeout: 0 }).catch(() => {});
}

/**
 * One statement on one session, inside `BEGIN [READ ONLY]` with `SET LOCAL
 * statement_timeout`. On a session read-only by default the statement is
 * sent right behind the BEGIN, in the same round trip: had the BEGIN failed,
 * the statement ran in a transaction of its own that is read-only all the
 * same. A read's reset runs after its answer: the session goes back to the
 * pool once it is reset, and what it does cannot change the answer.
 *
 * A read answered whole whose values could be written in (`inlined`) goes
 * as one simple query instead: the BEGIN, the statement and the reset
 * (reset.ts), one write and one answer. The server parses the whole text
 * before it runs any of it, and one that fails ends the text: the reset
 * then runs on its own, as after any failure.
 */
class PgStatement implements StatementSource {
  private query: ValuesQuery | null = null;
  private iterator: AsyncIterator<unknown[][]> | null = null;
  private converts: Convert[] = [];
  private first: Value[][] | null = null;
  private begun = false;
  private exhausted = false;
  /** The BEGIN failed: the session is not handed out again. */
  private broken = false;
  /** The statement runs as one this session prepared. */
  private prepared = false;
  /** Set once a one-trip read's reset has answered: whether the session may serve again. */
  private resetAnswer: boolean | null = null;

  constructor(
    private readonly driver: PostgresDriver,
    private readonly session: PgSession,
    private readonly request: RunRequest,
    private readonly readOnly: boolean,
  ) {}

  async start(cancelled: AbortSignal): Promise<ColumnMeta[]> {
    const whole = this.oneTripText();
    if (whole !== null) return this.startWhole(whole);
    let result: IteratorResult<unknown[][]>;
    try {
      result = await this.begin(cancelled);
    } catch (error) {
      if (!this.prepared || !isStalePlan(error)) throw error;
      // A table changed under a statement this session prepared: its transaction is aborted, the statement re-planned once.
      await this.session.sql.unsafe('ROLLBACK').simple();
      this.session.prepared.delete(this.request.text);
      result = await this.begin(cancelled);
    }
    const columns = this.described(this.query!.statement?.columns ?? []);
    if (result.done) this.exhausted = true;
    else this.first = this.batch(result.value);
    return columns;
  }

  private described(described: { name: string; type: number }[]): ColumnMeta[] {
    const types = this.driver.typesOf(described.map((c) => c.type));
    this.converts = types.map((t) => t.convert);
    return described.map((c, i) => ({ name: c.name, dbType: types[i].name, kind: types[i].kind }));
  }

  /**
   * The one simple query of a read answered whole, or null when the read
   * must go as BEGIN, a bound statement and a reset: values that cannot be
   * literals, a session that may write or holds dblink connections to close,
   * or one where a quote could mean something else (standard_conforming_strings
   * off, an encoding other than UTF-8).
   */
  private oneTripText(): string | null {
    const { inlined, rowsAtMost, batchSize, timeoutMs } = this.request;
    if (inlined === undefined || rowsAtMost === undefined || rowsAtMost > batchSize) return null;
    if (!this.readOnly || !this.driver.sessionsReadOnly || this.session.dblink) return null;
    const server = this.session.sql.parameters as Record<string, string | undefined>;
    if (server.standard_conforming_strings !== 'on' || server.client_encoding !== 'UTF8') return null;
    const limit = timeoutMs > 0 ? ` SET LOCAL statement_timeout = ${Math.ceil(timeoutMs)};` : '';
    // Each on a line of its own: a line comment ending the statement ends there.
    return `BEGIN READ ONLY;${limit}\n${inlined}\n;${endText({ commit: false, wrote: false })}`;
  }

  private async startWhole(text: string): Promise<ColumnMeta[]> {
    this.begun = true;
    this.exhausted = true;
    const query = this.session.sql.unsafe(text).simple().values() as ValuesQuery;
    this.query = query;
    // One result per row description: the BEGIN's (none), the statement's, the reset's.
    const results = (await query) as unknown as (unknown[][] & { columns?: { name: string; type: number }[] })[];
    const [, rows, reset] = results.length === 3 ? results : [];
    if (!rows?.columns || !reset) {
      this.broken = true;
      throw new Error(`the server answered ${results.length} results to a read sent whole, not 3`);
    }
    const columns = this.described(rows.columns);
    this.first = this.convert(rows);
    const at = reset.columns?.findIndex((c) => c.name === 'sql_prepared') ?? -1;
    const sqlPrepared = (reset[0] as (string | undefined)[] | undefined)?.[at];
    this.resetAnswer = await afterEnd(this.session, { sql_prepared: sqlPrepared }, false).then(() => true, () => false);
    return columns;
  }

  /** BEGIN, then the statement; its first batch (all its rows when it is read whole). */
  private async begin(cancelled: AbortSignal): Promise<IteratorResult<unknown[][]>> {
    const { sql } = this.session;
    const { timeoutMs } = this.request;
    const limit = timeoutMs > 0 ? `; SET LOCAL statement_timeout = ${Math.ceil(timeoutMs)}` : '';
    const begin = sql.unsafe(`${this.readOnly ? 'BEGIN READ ONLY' : 'BEGIN'}${limit}`).simple();
    this.begun = true;
    let first: Promise<IteratorResult<unknown[][]>>;
    if (this.readOnly && this.driver.sessionsReadOnly) {
      begin.execute();
      first = this.send(true);
      // Read whatever the statement answers, so that a failed BEGIN's error is the one thrown.
      first.catch(() => {});
      await begin.catch((error: unknown) => {
        this.broken = true;
        throw error;
      });
    } else {
      await begin;
      cancelled.throwIfAborted();
      first = this.send(false);
    }
    return first;
  }

  /**
   * A batch shorter than the cursor's is the portal's last: the server
   * suspends a portal only on a full one. Known here, the rows end without
   * waiting for the Sync's answer, a round trip the reset then queues behind.
   */
  private batch(rows: unknown[][]): Value[][] {
    if (rows.length < Math.max(1, this.request.batchSize)) this.exhausted = true;
    return this.convert(rows);
  }

  /**
   * Sends the statement; answers its first batch. With parameters, on a
   * session read-only by default, it is prepared once per session and text
   * (up to PREPARED_PER_SESSION texts): unprepared, postgres.js describes
   * such a statement in a round trip of its own before every run. The reset
   * keeps these (reset.ts).
   */
  private send(mayPrepare: boolean): Promise<IteratorResult<unknown[][]>> {
    const { text } = this.request;
    const values = this.request.values as postgres.ParameterOrJSON<never>[];
    const { prepared } = this.session;
    this.prepared = mayPrepare && values.length > 0 && (prepared.has(text) || prepared.size < PREPARED_PER_SESSION);
    if (this.prepared) prepared.add(text);
    const query = this.session.sql.unsafe(text, values, { prepare: this.prepared }).values() as ValuesQuery;
    this.query = query;
    const { rowsAtMost, batchSize } = this.request;
    if (rowsAtMost !== undefined && rowsAtMost <= batchSize) {
      // A page folded into the statement fits one batch: read whole, its Sync goes with it instead of a round trip after.
      this.exhausted = true;
      return query.then((rows) => ({ done: false, value: rows as unknown as unknown[][] }));
    }
    this.iterator = query.cursor(Math.max(1, batchSize))[Symbol.asyncIterator]() as AsyncIterator<unknown[][]>;
    return this.iterator.next();
  }

  async pull(): Promise<Value[][] | null> {
    if (this.first) {
      const rows = this.first;
      this.first = null;
      return rows;
    }
    if (this.exhausted || !this.iterator) return null;
    const result = await this.iterator.next();
    if (result.done) {
      this.exhausted = true;
      return null;
    }
    return this.batch(result.value);
  }

  private convert(rows: unknown[][]): Value[][] {
    const converts = this.converts;
    const width = converts.length;
    for (const row of rows) {
      for (let i = 0; i < width; i++) {
        const text = row[i];
        if (text !== null) row[i] = converts[i](text as string);
      }
    }
    return rows as Value[][];
  }

  interrupt(): void {
    this.query?.cancel();
  }

  finish(outcome: Outcome, interrupted: boolean): Promise<void> {
    const reset = this.resetAnswer === null ? this.reset(outcome, interrupted) : Promise.resolve(this.resetAnswer && !interrupted);
    if (this.readOnly && outcome !== 'failed') {
      void this.driver.releaseAfter(this.session, reset);
      return Promise.resolve();
    }
    return reset.then((reusable) => this.driver.release(this.session, reusable));
  }

  /** Ends the transaction and resets the session; whether it may serve again. */
  private async reset(outcome: Outcome, interrupted: boolean): Promise<boolean> {
    try {
      if (this.iterator && !this.exhausted) await this.iterator.return?.();
      if (this.begun) await endTransaction(this.session, { commit: !this.readOnly && outcome !== 'failed', wrote: !this.readOnly });
    } catch {
      return false;
    }
    // A cancel request may land on whatever the backend runs next: never reuse that session.
    return !interrupted && !this.broken;
  }
}
