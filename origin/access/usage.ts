import { and, eq, sql } from 'drizzle-orm';
import type { Logger } from '../observability/logger.ts';
import { SluiceError } from '../errors.ts';
import type { Caller } from './caller.ts';
import { BatchWriter } from '../store/batch-writer.ts';
import type { Store } from '../store/open.ts';
import { usageCounters } from '../store/schema/index.ts';
import { type QuotaPeriod, parseQuota } from '../../shared/access/rate.ts';
import { countsDay } from '../../shared/access/grants.ts';
import type { BudgetLeft } from '../../shared/access/budget.ts';
import { type BudgetCheck, DayBudgets, type Delta, addDeltas, budgetExhausted, seconds } from './day-budgets.ts';
import { periodKey, secondsToPeriodEnd } from './periods.ts';

/** A caller's runs on this origin since it started (a key's `usage`): per process, like connection usage. */
export interface LiveUsage {
  queries: number;
  errors: number;
  rows: number;
}

/** Calls, rows and database seconds of one caller in one calendar period (a key's `usage_this_period`, `/api/v1/usage/quotas`). */
export interface PeriodCounts {
  calls: number;
  rows: number;
  db_seconds: number;
}

/** A call let through: `release()` (idempotent) when its response has ended, streams included. */
export interface Admission {
  release(): void;
  /** The key's day budget left before this call; null for a caller without one. */
  budget: BudgetLeft | null;
}

/** What usage reads of a finished run (a history entry). */
export interface FinishedRun {
  time: Date;
  keyName: string | null;
  status: 'success' | 'error';
  rows: number;
  durationMs: number;
  serializationMs: number | null;
}

export interface CallerUsageOptions {
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** How long counted calls and rows wait in memory before one batched write. */
  flushIntervalMs?: number;
  now?: () => number;
  /** A key's day budget was found spent (once per key and day): the edge is told, so it refuses the key itself. */
  onBudgetSpent?: () => void;
}

export const tooManyConcurrent = () => new SluiceError('rate_limited', 'Too many concurrent requests for this API key');

export const quotaExceeded = (retryAfter: number) =>
  new SluiceError('rate_limited', 'Quota exceeded for this API key', { retry_after: retryAfter });

/** The usage of each store's origin, so `periodUsage` can add counts not written yet. */
const byStore = new WeakMap<object, CallerUsage>();

/**
 * Per-caller usage: admission of a call (a key's `max_concurrent`, in memory
 * per origin, and its `quota`, shared through the store), live counts, and
 * the usage_counters rows every origin adds to.
 *
 * A call of a key with a quota is counted by one conditional upsert on its
 * quota period's row (`calls < limit`), so origins sharing a store never let
 * more than the quota through. Every other count (calls of callers without a
 * quota, the other period, rows) is batched off the request path and written
 * every `flushIntervalMs`, so `usage_counters` may lag that much behind,
 * except for a key with a day budget: its runs' rows and database time are
 * written as each run ends (day-budgets.ts), so every origin checks the same
 * figures.
 */
export class CallerUsage {
  private readonly counters = new Map<string, LiveUsage>();
  private readonly running = new Map<number, number>();
  private readonly pending: BatchWriter<Delta>;
  private readonly now: () => number;
  private readonly dayBudgets: DayBudgets;

  constructor(
    private readonly store: Pick<Store, 'db'>,
    options: CallerUsageOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.pending = new BatchWriter<Delta>({
      what: 'usage counters',
      write: (batch) => this.write(batch),
      logger: options.logger,
      flushIntervalMs: options.flushIntervalMs ?? 1000,
      combine: {
        key: (delta) => deltaKey(delta.caller, delta.period),
        merge: (into, delta) => {
          into.calls += delta.calls;
          into.rows += delta.rows;
          into.dbMs += delta.dbMs;
        },
      },
    });
    this.dayBudgets = new DayBudgets({
      store,
      logger: options.logger,
      now: this.now,
      fallback: (delta) => this.pending.add(delta),
      unwritten: (caller, period) => {
        const delta = this.pending.waiting(deltaKey(caller, period));
        return { rows: delta?.rows ?? 0, dbMs: delta?.dbMs ?? 0 };
      },
      onSpent: options.onBudgetSpent,
    });
    // The first made on a store is its origin's (tests make more beside it).
    if (!byStore.has(store)) byStore.set(store, this);
  }

  /**
   * Lets a call through or refuses it with 429: a key running `max_concurrent`
   * requests already, a key whose day budget is spent, or past its quota
   * (with `retry_after`, the seconds to the period's end). A call let
   * through is counted at once.
   */
  async admit(caller: Pick<Caller, 'name' | 'key'>): Promise<Admission> {
    const limitedKey = caller.key?.grants.max_concurrent != null ? caller.key : null;
    if (limitedKey) {
      const running = this.running.get(limitedKey.id) ?? 0;
      if (running >= limitedKey.grants.max_concurrent!) throw tooManyConcurrent();
      this.running.set(limitedKey.id, running + 1);
    }
    let released = false;
    const release = () => {
      if (released || !limitedKey) return;
      released = true;
      const left = (this.running.get(limitedKey.id) ?? 1) - 1;
      if (left > 0) this.running.set(limitedKey.id, left);
      else this.running.delete(limitedKey.id);
    };
    let budget: BudgetLeft | null = null;
    try {
      const check = await this.checkBudget(caller);
      if (check?.exhausted) throw budgetExhausted(check);
      budget = check?.left ?? null;
      await this.countCall(caller);
    } catch (err) {
      release();
      throw err;
    }
    return { release, budget };
  }

  /**
   * A key's day budget against what every origin counted today (this
   * origin's runs included, written or not); null for a caller without one.
   * A spent budget is announced once per key and day (`onBudgetSpent`).
   */
  async checkBudget(caller: Pick<Caller, 'name' | 'key'>): Promise<BudgetCheck | null> {
    const budget = caller.key?.grants.budget ?? null;
    if (!countsDay(budget)) return null;
    return this.dayBudgets.check(caller.name, budget);
  }

  /**
   * Counts a finished run (rows, errors, database time: its duration less
   * serialisation); called for every run history records.
   */
  recordRun(run: FinishedRun): void {
    if (run.keyName === null) return;
    let live = this.counters.get(run.keyName);
    if (!live) this.counters.set(run.keyName, (live = { queries: 0, errors: 0, rows: 0 }));
    live.queries += 1;
    if (run.status === 'error') live.errors += 1;
    live.rows += run.rows;
    const dbMs = Math.max(0, Math.round(run.durationMs - (run.serializationMs ?? 0)));
    if (run.rows === 0 && dbMs === 0) return;
    const at = run.time.getTime();
    const deltas = (['day', 'month'] as const).map((period) => ({ caller: run.keyName!, period: periodKey(period, at), calls: 0, rows: run.rows, dbMs }));
    // A key that called with a day budget has its runs written as they end.
    if (this.dayBudgets.counts(run.keyName)) this.dayBudgets.spend(run.keyName, deltas);
    else for (const delta of deltas) this.pending.add(delta);
  }

  /** This origin's runs for a caller since it started. */
  live(callerName: string): LiveUsage {
    const live = this.counters.get(callerName);
    return live ? { ...live } : { queries: 0, errors: 0, rows: 0 };
  }

  /** Drops this origin's live counts of a caller (forgetting a caller); stored counts are the verb's to delete. */
  forget(callerName: string): void {
    this.counters.delete(callerName);
  }

  /** Requests a key has running on this origin now. */
  runningFor(keyId: number): number {
    return this.running.get(keyId) ?? 0;
  }

  /** Counts not written yet for one caller and period key (a budgeted key's runs being written included). */
  unwritten(caller: string, period: string): PeriodCounts {
    const delta = this.pending.waiting(deltaKey(caller, period));
    const budgeted = this.dayBudgets.waiting(caller, period);
    return { calls: delta?.calls ?? 0, rows: (delta?.rows ?? 0) + budgeted.rows, db_seconds: seconds((delta?.dbMs ?? 0) + budgeted.dbMs) };
  }

  /** Every count not written yet. */
  unwrittenAll(): Delta[] {
    return this.pending.items().map((d) => ({ ...d }));
  }

  /** Writes the counts waiting in memory; on failure they stay queued for the next try. */
  flush(): Promise<void> {
    return this.pending.flush();
  }

  /** Writes what is waiting; later counts are not written. */
  async close(): Promise<void> {
    if (byStore.get(this.store) === this) byStore.delete(this.store);
    await this.dayBudgets.settle();
    await this.pending.close();
  }

  private async countCall(caller: Pick<Caller, 'name' | 'key'>): Promise<void> {
    const now = this.now();
    const quota = caller.key?.grants.quota ? parseQuota(caller.key.grants.quota) : null;
    const batched: QuotaPeriod[] = quota?.period === 'day' ? ['month'] : quota?.period === 'month' ? ['day'] : ['day', 'month'];
    if (quota) {
      const period = periodKey(quota.period, now);
      const [row] = await this.store.db
        .insert(usageCounters)
        .values({ caller: caller.name, period, calls: 1, rows: 0 })
        .onConflictDoUpdate({
          target: [usageCounters.caller, usageCounters.period],
          set: { calls: sql`${usageCounters.calls} + 1` },
          setWhere: sql`${usageCounters.calls} < ${quota.limit}`,
        })
        .returning({ calls: usageCounters.calls });
      if (!row) throw quotaExceeded(secondsToPeriodEnd(quota.period, now));
    }
    for (const period of batched) this.pending.add({ caller: caller.name, period: periodKey(period, now), calls: 1, rows: 0, dbMs: 0 });
  }

  private async write(batch: Delta[]): Promise<void> {
    await addDeltas(this.store.db, batch);
  }
}

const deltaKey = (caller: string, period: string) => `${caller}\u0000${period}`;

/**
 * A caller's calls, rows and database time in the current day or month
 * (server's zone), as every origin sharing the store counted them, plus this
 * origin's counts not written yet.
 */
export async function periodUsage(store: Pick<Store, 'db'>, callerName: string, period: QuotaPeriod, now: number | Date = Date.now()): Promise<PeriodCounts> {
  const key = periodKey(period, typeof now === 'number' ? now : now.getTime());
  const [row] = await store.db
    .select({ calls: usageCounters.calls, rows: usageCounters.rows, dbMs: usageCounters.dbMs })
    .from(usageCounters)
    .where(and(eq(usageCounters.caller, callerName), eq(usageCounters.period, key)));
  const extra = byStore.get(store)?.unwritten(callerName, key) ?? { calls: 0, rows: 0, db_seconds: 0 };
  return { calls: (row?.calls ?? 0) + extra.calls, rows: (row?.rows ?? 0) + extra.rows, db_seconds: seconds((row?.dbMs ?? 0) + extra.db_seconds * 1000) };
}

/** The usage of the origin that counts into this store, if one was made here (unwritten counts). */
export const usageOf = (store: Pick<Store, 'db'>): CallerUsage | undefined => byStore.get(store);
