import type { Value } from '../../values.ts';
import type { Outcome, StatementSource } from '../cursor.ts';
import { exec, resetSession, type MysqlSession } from './session.ts';
import { mysqlType, type MysqlField } from './types.ts';
import type { ColumnMeta, RunRequest } from '../types.ts';

/** What a statement needs from its driver. */
export interface StatementHost {
  setLimit(session: MysqlSession, timeoutMs: number): Promise<void>;
  killQuery(threadId: number | null): Promise<void>;
  release(session: MysqlSession, reusable: boolean): Promise<void>;
}

/** How long closing early may spend reading the rest of a result before killing it instead. */
const DRAIN_BUDGET_MS = 200;

/**
 * One statement streamed with backpressure: rows collect into batches and the
 * connection is paused while a full batch waits to be pulled.
 */
export class MysqlStatement implements StatementSource {
  private converts: (((value: unknown) => Value) | null)[] = [];
  private readonly ready: Value[][][] = [];
  private current: Value[][] = [];
  private columns: ColumnMeta[] | null = null;
  private ended = false;
  private error: unknown = null;
  private paused = false;
  private discarding = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly driver: StatementHost,
    private readonly session: MysqlSession,
    private readonly request: RunRequest,
    private readonly readOnly: boolean,
  ) {}

  async start(cancelled: AbortSignal): Promise<ColumnMeta[]> {
    const { conn } = this.session;
    await this.driver.setLimit(this.session, this.request.timeoutMs);
    // Session-wide, not just a READ ONLY transaction: MariaDB commits a transaction before DDL, which then ran. The reset in `finish` (or the session's end) undoes it.
    if (this.readOnly) await exec(conn, 'SET SESSION TRANSACTION READ ONLY');
    cancelled.throwIfAborted();
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

  async finish(_outcome: Outcome, interrupted: boolean): Promise<void> {
    let reusable = !interrupted && !this.session.broken;
    try {
      const running = !this.ended && this.error === null && this.columns !== null;
      if (running && reusable && !(await this.drain())) {
        reusable = false;
        await this.driver.killQuery(this.session.conn.threadId);
      }
      // The reset also ends a read's transaction, with a rollback.
      if (reusable) reusable = await resetSession(this.session, !this.readOnly);
    } catch {
      reusable = false;
    }
    if (!reusable) this.session.broken = true;
    await this.driver.release(this.session, reusable);
  }
}
