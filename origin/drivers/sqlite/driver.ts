import { resolve } from 'node:path';
import type { Value, ValueKind } from '../../values.ts';
import { openCursor, type Outcome, type StatementSource } from '../cursor.ts';
import { sessionLost } from '../failures.ts';
import { PooledDriver } from '../pooled.ts';
import { sqliteCatalog } from './catalog.ts';
import { SqliteSession } from './session.ts';
import type { ColumnMeta, ConnectionSettings, DriverEnv, RowCursor, RunRequest } from '../types.ts';

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

export class SqliteDriver extends PooledDriver<SqliteSession, SqliteSession> {
  readonly type = 'sqlite' as const;
  readonly dialect = 'sqlite' as const;
  protected readonly catalog = sqliteCatalog;
  private readonly database: string;

  constructor(settings: ConnectionSettings, env: DriverEnv) {
    super(settings, env);
    const database = settings.database ?? ':memory:';
    this.database = database === ':memory:' ? database : resolve(database);
  }

  openSession(): Promise<SqliteSession> {
    return SqliteSession.open(this.database);
  }

  protected destroySession(session: SqliteSession): Promise<void> {
    return session.terminate();
  }

  protected override sessionAlive(session: SqliteSession): boolean {
    return session.alive;
  }

  protected handle(session: SqliteSession): SqliteSession {
    return session;
  }

  /** A catalog read that failed in SQLite leaves the process as it was; one that ended it does not. */
  protected override keepsSessionAfter(_error: unknown, session: SqliteSession): boolean {
    return session.alive;
  }

  async run(request: RunRequest): Promise<RowCursor> {
    const session = await this.sessionForStatement(request);
    const release = (reusable: boolean) => this.release(session, reusable);
    return openCursor(new SqliteStatement(session, request, !this.readOnly(request), release), {
      request,
      fail: (error) => this.statementFailed(error),
    });
  }
}

/** One statement; each batch is one request to the worker, so the worker never runs ahead of the reader. */
class SqliteStatement implements StatementSource {
  private done = false;

  constructor(
    private readonly session: SqliteSession,
    private readonly request: RunRequest,
    private readonly write: boolean,
    private readonly release: (reusable: boolean) => Promise<void>,
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
    return this.session.terminate();
  }

  async finish(_outcome: Outcome, interrupted: boolean): Promise<void> {
    let reusable = !interrupted && this.session.alive;
    if (reusable && !this.done) {
      try {
        await this.session.call({ op: 'end' });
      } catch {
        reusable = false;
      }
    }
    await this.release(reusable);
  }
}
