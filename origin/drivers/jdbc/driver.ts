import { SluiceError } from '../../errors.ts';
import type { Value } from '../../values.ts';
import { openCursor, type Outcome, type StatementSource } from '../cursor.ts';
import { jdbcEngine, type Engine } from '../../sql/engine.ts';
import { PooledDriver, type SessionCatalog } from '../pooled.ts';
import { buildListing } from '../schema-listing.ts';
import type { ColumnMeta, ConnectionSettings, DriverEnv, RowCursor, RunRequest } from '../types.ts';
import { JdbcHelper, type HelperSetup } from './helper.ts';
import { converter, param, valueKind } from './values.ts';

/** A session: one JDBC connection inside the pool's helper process. */
interface JdbcSession {
  id: number;
  helper: JdbcHelper;
}

const SYSTEM_SCHEMAS = new Set(['information_schema', 'pg_catalog', 'INFORMATION_SCHEMA']);

/** H2's driver, and the jar Debian's libh2-java installs. */
export const H2_DEFAULTS = { driverClass: 'org.h2.Driver', driverJar: '/usr/share/java/h2.jar' };

type CatalogRow = [string, string, string, string, boolean, number];

const catalog: SessionCatalog<JdbcSession> = {
  async schema(session, database, maxColumns) {
    const reply = await session.helper.call(session.id, { op: 'catalog', what: 'tables', schema: database });
    return buildListing(
      (reply.rows as CatalogRow[]).map(([table, kind, column, type, nullable]) => ({
        table,
        kind: /VIEW/i.test(kind) ? 'view' : 'table',
        column,
        type,
        nullable,
      })),
      maxColumns,
    );
  },
  async databases(session) {
    const reply = await session.helper.call(session.id, { op: 'catalog', what: 'schemas' });
    return (reply.rows as string[]).filter((name) => !SYSTEM_SCHEMAS.has(name));
  },
  async tableDdl(session, table) {
    const reply = await session.helper.call(session.id, { op: 'catalog', what: 'tables', schema: null, table });
    const rows = reply.rows as CatalogRow[];
    if (rows.length === 0) throw new SluiceError('not_found', `Table ${table} was not found`);
    // JDBC has no DDL to give: rebuilt from the column metadata.
    const columns = rows.map(([, , column, type, nullable]) => `  ${column} ${type}${nullable ? '' : ' NOT NULL'}`);
    return `CREATE TABLE ${table} (\n${columns.join(',\n')}\n);\n`;
  },
  ping: (session) => session.helper.call(session.id, { op: 'ping' }),
};

/**
 * Any database with a JDBC driver, through the Java helper (helper.ts): one
 * helper process per pool, a JDBC connection per session, opened with
 * `setReadOnly(true)` for reads. The query timeout is not enforced (the spec
 * says so for JDBC); a client that goes away kills the helper, which ends its
 * statement whatever the driver does with `cancel`.
 */
export class JdbcDriver extends PooledDriver<JdbcSession, JdbcSession> {
  readonly type: 'jdbc' | 'h2';
  readonly dialect = 'jdbc' as const;
  /** H2 ignores the read-only flag: the guard allows only H2's pure functions there (origin/sql/h2.ts). */
  readonly engine: Engine;
  protected readonly catalog = catalog;
  private helper: Promise<JdbcHelper> | null = null;
  private sessions = 0;
  private readonly setup: HelperSetup;
  /** An H2 database (the h2 type, or jdbc with an H2 URL). */
  readonly h2: boolean;

  constructor(settings: ConnectionSettings, env: DriverEnv) {
    super(settings, env);
    this.type = settings.type === 'h2' ? 'h2' : 'jdbc';
    const options = settings.options;
    const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
    const url = text(options.jdbc_url) ?? '';
    this.setup = {
      url,
      driverClass: text(options.driver_class) ?? (this.type === 'h2' ? H2_DEFAULTS.driverClass : ''),
      driverJar: text(options.driver_jar) ?? (this.type === 'h2' ? H2_DEFAULTS.driverJar : ''),
      user: settings.user ?? null,
      password: settings.password ?? null,
    };
    this.engine = jdbcEngine(this.type, url, this.setup.driverClass);
    this.h2 = this.engine === 'h2';
  }

  private current: JdbcHelper | null = null;

  /** The pool's helper: the running one, the one starting, or a new one (never two at once). */
  private process(): Promise<JdbcHelper> {
    let previous: Promise<void> = Promise.resolve();
    if (this.current && !this.current.alive) {
      // A condemned helper may still hold the database (an H2 file): the next starts once it is gone.
      previous = this.current.gone;
      this.current = null;
      this.helper = null;
    }
    if (!this.helper) {
      const starting = previous.then(() => JdbcHelper.start(this.setup));
      this.helper = starting;
      starting.then(
        (helper) => (this.current = helper),
        () => {
          if (this.helper === starting) this.helper = null;
        },
      );
    }
    return this.helper;
  }

  async openSession(): Promise<JdbcSession> {
    const helper = await this.process();
    const session = { id: ++this.sessions, helper };
    await helper.call(session.id, { op: 'open' });
    return session;
  }

  protected async destroySession(session: JdbcSession): Promise<void> {
    if (session.helper.alive) await session.helper.call(session.id, { op: 'close' }).catch(() => {});
  }

  protected override sessionAlive(session: JdbcSession): boolean {
    return session.helper.alive;
  }

  protected override keepsSessionAfter(_error: unknown, session: JdbcSession): boolean {
    return session.helper.alive;
  }

  protected handle(session: JdbcSession): JdbcSession {
    return session;
  }

  async run(request: RunRequest): Promise<RowCursor> {
    // No time limit, on the statement nor on its wait for a session: the spec leaves the query timeout unenforced on JDBC.
    const unlimited = { ...request, timeoutMs: 0 };
    const session = await this.sessionForStatement(unlimited);
    return openCursor(new JdbcStatement(this, session, request, this.readOnly(request)), {
      request: unlimited,
      fail: (error) => this.statementFailed(error),
    });
  }

  override async close(): Promise<void> {
    await super.close();
    const helper = this.helper ? await this.helper.catch(() => null) : null;
    this.helper = null;
    await helper?.stop();
  }
}

class JdbcStatement implements StatementSource {
  private converts: ((value: unknown) => Value)[] = [];
  private done = false;

  constructor(
    private readonly driver: JdbcDriver,
    private readonly session: JdbcSession,
    private readonly request: RunRequest,
    private readonly readOnly: boolean,
  ) {}

  async start(): Promise<ColumnMeta[]> {
    const reply = await this.session.helper.call(this.session.id, {
      op: 'query',
      sql: this.request.text,
      params: this.request.values.map(param),
      readOnly: this.readOnly,
      fetch: this.request.batchSize,
    });
    const columns = reply.columns as [string, string, string][];
    if (columns.length === 0) this.done = true;
    this.converts = columns.map(([, , kind]) => converter(kind));
    return columns.map(([name, dbType, kind]) => ({ name, dbType, kind: valueKind(kind) }));
  }

  async pull(): Promise<Value[][] | null> {
    if (this.done) return null;
    const reply = await this.session.helper.call(this.session.id, { op: 'next', rows: this.request.batchSize });
    const rows = reply.rows as unknown[][];
    if (reply.done) this.done = true;
    const converts = this.converts;
    for (const row of rows) for (let i = 0; i < converts.length; i++) row[i] = converts[i](row[i]);
    return rows.length > 0 ? (rows as Value[][]) : null;
  }

  /** The client went away: the helper goes, and the statement with it. */
  interrupt(): void {
    // JDBC's cancel first (PostgreSQL would otherwise run on, not noticing the closed socket), then the process.
    this.session.helper.cancel(this.session.id);
    this.session.helper.killSoon(300);
  }

  async finish(outcome: Outcome, interrupted: boolean): Promise<void> {
    let reusable = !interrupted && this.session.helper.alive;
    if (reusable) {
      const commit = outcome === 'done' && !this.readOnly;
      // H2 has no DISCARD and keeps @variables, SET settings, the schema and local temporary tables per
      // session: a new session per statement costs 0.01–0.1 ms on a database the helper holds open.
      const renew = this.driver.h2;
      reusable = await this.session.helper.call(this.session.id, { op: 'finish', commit, renew }).then(
        () => true,
        () => false,
      );
    }
    await this.driver.release(this.session, reusable).catch(() => {});
  }
}
