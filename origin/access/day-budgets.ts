import { and, eq, sql } from 'drizzle-orm';
import type { Logger } from '../observability/logger.ts';
import { SluiceError } from '../errors.ts';
import type { Store } from '../store/open.ts';
import { usageCounters } from '../store/schema/index.ts';
import { type BudgetLeft, type SpentBudget, budgetExhaustedExtras, budgetExhaustedMessage } from '../../shared/access/budget.ts';
import type { Budget } from '../../shared/access/grants.ts';
import { periodKey, secondsToPeriodEnd } from './periods.ts';

/** Calls, rows and database time added to one caller's row of one period. */
export interface Delta {
  caller: string;
  period: string;
  calls: number;
  rows: number;
  dbMs: number;
}

/** The rows and database seconds a budget is checked against. */
export interface DayUse {
  rows: number;
  db_seconds: number;
}

/** A day budget checked before a call: what is left, or the limit already spent. */
export type BudgetCheck =
  | { exhausted: false; left: BudgetLeft }
  | ({ exhausted: true; left: BudgetLeft; retryAfter: number } & SpentBudget);

/** Database time as usage counts it: seconds to the millisecond. */
export const seconds = (ms: number) => Math.round(ms) / 1000;

/** 429 for a key whose day budget is spent. */
export const budgetExhausted = (check: Extract<BudgetCheck, { exhausted: true }>) =>
  new SluiceError('budget_exhausted', budgetExhaustedMessage(check), budgetExhaustedExtras(check, check.retryAfter));

/**
 * A day budget against the day's counts: spent once either limit is reached
 * (rows first), else what is left of each. A run under budget is never cut:
 * the day's figures may pass a limit by one run.
 */
export function budgetCheck(budget: Budget, used: DayUse, now: number): BudgetCheck {
  const left = budgetLeft(budget, used);
  const retryAfter = () => secondsToPeriodEnd('day', now);
  if (budget.rows_per_day !== null && used.rows >= budget.rows_per_day) {
    return { exhausted: true, left, budget: 'rows_per_day', spent: used.rows, limit: budget.rows_per_day, retryAfter: retryAfter() };
  }
  if (budget.db_seconds_per_day !== null && used.db_seconds >= budget.db_seconds_per_day) {
    return { exhausted: true, left, budget: 'db_seconds_per_day', spent: used.db_seconds, limit: budget.db_seconds_per_day, retryAfter: retryAfter() };
  }
  return { exhausted: false, left };
}

/** What is left of a budget's day limits (never below 0); null where it has none. */
export const budgetLeft = (budget: Budget | null, used: DayUse): BudgetLeft => ({
  rows: budget?.rows_per_day == null ? null : Math.max(0, budget.rows_per_day - used.rows),
  db_seconds: budget?.db_seconds_per_day == null ? null : Math.max(0, seconds((budget.db_seconds_per_day - used.db_seconds) * 1000)),
});

/** Adds deltas to their rows, one statement for the batch (a row missing is made). */
export const addDeltas = (db: Store['db'], batch: Delta[]) =>
  db
    .insert(usageCounters)
    .values(batch)
    .onConflictDoUpdate({
      target: [usageCounters.caller, usageCounters.period],
      set: {
        calls: sql`${usageCounters.calls} + excluded.calls`,
        rows: sql`${usageCounters.rows} + excluded.rows`,
        dbMs: sql`${usageCounters.dbMs} + excluded.db_ms`,
      },
    });

/**
 * How long the day's row as the store last gave it stands for every
 * origin's count: another origin's runs are seen at most this late (or at
 * this origin's next write for the key, which answers the row).
 */
export const FRESH_MS = 250;

/** How long a run's counts wait for others to be written with them. */
export const LINGER_MS = 25;

interface Tally {
  /** The key's budget as its last run found it. */
  budget: Budget;
  /** The day's row as the store last answered it (a read, or this origin's write), and when. */
  stored: { day: string; rows: number; dbMs: number; at: number } | null;
  /** Runs ended and not yet sent, and those being written, by period. */
  queued: Map<string, Delta>;
  sending: Map<string, Delta>;
  /** The writes under way: they write what is queued meanwhile before they end. */
  write: Promise<void> | null;
  /** The one statement of them in flight now. */
  current: Promise<void> | null;
  /** Bumped by every answer a write gives: a read begun before it is stale. */
  writes: number;
}

export interface DayBudgetsOptions {
  store: Pick<Store, 'db'>;
  logger: Pick<Logger, 'warn'>;
  now: () => number;
  /** Where counts the store refused go: the batched writer, which retries. */
  fallback(delta: Delta): void;
  /** Counts of the fallback not written yet. */
  unwritten(caller: string, period: string): { rows: number; dbMs: number };
  /** A budget was found spent (once per key and day). */
  onSpent?: () => void;
}

/**
 * The day counts of keys with a day budget on this origin. A check adds
 * this origin's own runs (written or not) to the day's row as the store
 * last gave it, read again once older than `FRESH_MS`; so a client's next
 * call sees its last run, and another origin's runs are seen within a
 * quarter of a second, without a store round trip per call. A run's counts
 * are written as it ends, with those of the runs ending within `LINGER_MS`
 * or during the write before: at most one write per key in flight, a few a
 * second under load.
 */
export class DayBudgets {
  private readonly tallies = new Map<string, Tally>();
  /** `<key>\u0000<day>` of budgets found spent and announced. */
  private readonly announced = new Set<string>();

  constructor(private readonly options: DayBudgetsOptions) {}

  /** Waits for the writes under way (shutdown): what they fail to write goes to the batched writer. */
  async settle(): Promise<void> {
    await Promise.all([...this.tallies.values()].map((tally) => tally.write));
  }

  async check(name: string, budget: Budget): Promise<BudgetCheck> {
    const tally = this.tallyOf(name, budget);
    const now = this.options.now();
    const day = periodKey('day', now);
    if (!(tally.stored?.day === day && now - tally.stored.at < FRESH_MS)) await this.refresh(name, tally, day);
    const waiting = this.waiting(name, day);
    const fallback = this.options.unwritten(name, day);
    const stored = tally.stored?.day === day ? tally.stored : { rows: 0, dbMs: 0 };
    const check = budgetCheck(budget, { rows: stored.rows + waiting.rows + fallback.rows, db_seconds: seconds(stored.dbMs + waiting.dbMs + fallback.dbMs) }, now);
    // Announced once the store holds it (here, or when the write under way answers): the edge reads it there.
    if (check.exhausted && budgetCheck(budget, { rows: stored.rows, db_seconds: seconds(stored.dbMs) }, now).exhausted) this.announce(name, now);
    return check;
  }

  /** Whether a key's runs are counted here: it has called with a day budget. */
  counts(name: string): boolean {
    return this.tallies.has(name);
  }

  /** A finished run's deltas (its day and month) of a key it counts, written now or with the write under way. */
  spend(name: string, deltas: Delta[]): void {
    const tally = this.tallies.get(name)!;
    for (const delta of deltas) {
      const into = tally.queued.get(delta.period);
      if (into) {
        into.rows += delta.rows;
        into.dbMs += delta.dbMs;
      } else tally.queued.set(delta.period, { ...delta });
    }
    tally.write ??= this.drain(name, tally);
  }

  /** Counts of a key not yet in the store: queued or being written. */
  waiting(name: string, period: string): { rows: number; dbMs: number } {
    const tally = this.tallies.get(name);
    const parts = [tally?.queued.get(period), tally?.sending.get(period)];
    return { rows: parts.reduce((sum, d) => sum + (d?.rows ?? 0), 0), dbMs: parts.reduce((sum, d) => sum + (d?.dbMs ?? 0), 0) };
  }

  private tallyOf(name: string, budget: Budget): Tally {
    let tally = this.tallies.get(name);
    if (!tally) this.tallies.set(name, (tally = { budget, stored: null, queued: new Map(), sending: new Map(), write: null, current: null, writes: 0 }));
    tally.budget = budget;
    return tally;
  }

  /**
   * The day's row from the store; while a statement writes the key's
   * counts, its answer instead (a read beside it could count its deltas
   * twice or not at all). Only that one statement is waited for, never the
   * writes queued after it.
   */
  private async refresh(name: string, tally: Tally, day: string): Promise<void> {
    if (tally.current) return tally.current;
    const before = tally.writes;
    const [row] = await this.options.store.db
      .select({ rows: usageCounters.rows, dbMs: usageCounters.dbMs })
      .from(usageCounters)
      .where(and(eq(usageCounters.caller, name), eq(usageCounters.period, day)));
    if (tally.writes !== before || tally.current) return tally.current ?? undefined;
    tally.stored = { day, rows: row?.rows ?? 0, dbMs: row?.dbMs ?? 0, at: this.options.now() };
  }

  private async drain(name: string, tally: Tally): Promise<void> {
    try {
      while (tally.queued.size > 0) {
        // Runs ending within the linger go in one statement: under load, a few writes a second, not one a run.
        await new Promise((resolve) => setTimeout(resolve, LINGER_MS));
        tally.sending = tally.queued;
        tally.queued = new Map();
        tally.current = this.writeSending(name, tally);
        await tally.current;
      }
    } finally {
      tally.current = null;
      tally.write = null;
    }
  }

  /** One statement for the counts being sent; its answer is the day's row as every origin counted it. */
  private async writeSending(name: string, tally: Tally): Promise<void> {
    const deltas = [...tally.sending.values()];
    try {
      const rows = await addDeltas(this.options.store.db, deltas).returning({ period: usageCounters.period, rows: usageCounters.rows, dbMs: usageCounters.dbMs });
      const now = this.options.now();
      const today = periodKey('day', now);
      const day = rows.find((row) => row.period === today);
      tally.writes += 1;
      if (day) {
        tally.stored = { day: today, rows: day.rows, dbMs: day.dbMs, at: now };
        if (budgetCheck(tally.budget, { rows: day.rows, db_seconds: seconds(day.dbMs) }, now).exhausted) this.announce(name, now);
      }
    } catch (err) {
      this.options.logger.warn({ err: { message: (err as Error).message } }, 'budget usage not written; it is retried with the batched counts');
      for (const delta of deltas) this.options.fallback(delta);
    } finally {
      tally.sending = new Map();
      tally.current = null;
    }
  }

  private announce(name: string, at: number): void {
    const marker = `${name}\u0000${periodKey('day', at)}`;
    if (this.announced.has(marker)) return;
    this.announced.add(marker);
    this.options.onSpent?.();
  }
}
