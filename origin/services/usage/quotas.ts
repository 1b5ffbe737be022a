import type { BudgetLeft } from '../../../shared/access/budget.ts';
import { eq, inArray } from 'drizzle-orm';
import { periodEnd, periodKey } from '../../access/periods.ts';
import { budgetLeft } from '../../access/day-budgets.ts';
import { type PeriodCounts, usageOf } from '../../access/usage.ts';
import type { Budget } from '../../../shared/access/grants.ts';
import type { AppDeps } from '../../deps.ts';
import { apiKeys, usageCounters } from '../../store/schema/index.ts';
import { formatDate, serverTimeZone } from '../../time.ts';
import { parseQuota } from '../../../shared/access/rate.ts';

/** One caller's use of the current day and month, with its quota when it is a key that has one. */
export interface CallerQuota {
  /** A key's name, `admin` (the server key), an administrator's name, or `-` (open server). */
  name: string;
  /** A scoped key (only keys carry quotas). */
  key: boolean;
  day: PeriodCounts;
  month: PeriodCounts;
  /** `N/day` or `N/month`; null: none. */
  quota: string | null;
  /** Calls left in the quota's period; null without a quota. */
  remaining: number | null;
  /** When the quota's period ends and its count starts again; null without a quota. */
  resets_at: string | null;
  /** A key's budget (docs/reference/budgets.md); null: none. */
  budget: Budget | null;
  /** Rows and database seconds left of today's budget; each null without that limit. */
  budget_remaining: BudgetLeft;
}

export interface QuotasView {
  /** The current day (`YYYY-MM-DD`) and month (`YYYY-MM`) in the server's zone. */
  day: string;
  month: string;
  time_zone: string | null;
  callers: CallerQuota[];
}

const byName = (a: CallerQuota, b: CallerQuota) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

const NO_BUDGET: BudgetLeft = { rows: null, db_seconds: null };
const none = (): PeriodCounts => ({ calls: 0, rows: 0, db_seconds: 0 });

/**
 * `GET /api/v1/usage/quotas`: calls, rows and database seconds of every caller in the current
 * day and month, as all origins sharing the store counted them (plus this
 * origin's counts not written yet). Every key is listed, used or not; other
 * callers once they have made a call. A workspace-scoped call lists only
 * that workspace's keys.
 */
export async function quotas(deps: Pick<AppDeps, 'store'>, options: { workspace?: string; now?: number } = {}): Promise<QuotasView> {
  const now = options.now ?? Date.now();
  const day = periodKey('day', now);
  const month = periodKey('month', now);
  const keys = await deps.store.db
    .select({ name: apiKeys.name, grants: apiKeys.grants })
    .from(apiKeys)
    .where(options.workspace === undefined ? undefined : eq(apiKeys.workspace, options.workspace));
  const rows = await deps.store.db.select().from(usageCounters).where(inArray(usageCounters.period, [day, month]));
  const unwritten = usageOf(deps.store)?.unwrittenAll() ?? [];

  const counts = new Map<string, { day: PeriodCounts; month: PeriodCounts }>();
  const entry = (name: string) => {
    let found = counts.get(name);
    if (!found) counts.set(name, (found = { day: none(), month: none() }));
    return found;
  };
  for (const row of [...rows, ...unwritten]) {
    const slot = row.period === day ? 'day' : row.period === month ? 'month' : null;
    if (slot === null) continue;
    const counts = entry(row.caller)[slot];
    counts.calls += row.calls;
    counts.rows += row.rows;
    counts.db_seconds = Math.round(counts.db_seconds * 1000 + row.dbMs) / 1000;
  }

  const keyNames = new Set(keys.map((k) => k.name));
  const callers: CallerQuota[] = keys.map(({ name, grants }) => {
    const used = entry(name);
    const quota = grants.quota ? parseQuota(grants.quota) : null;
    return {
      name,
      key: true,
      ...used,
      quota: grants.quota ?? null,
      remaining: quota ? Math.max(0, quota.limit - used[quota.period].calls) : null,
      resets_at: quota ? formatDate(new Date(periodEnd(quota.period, now))) : null,
      budget: grants.budget ?? null,
      budget_remaining: budgetLeft(grants.budget ?? null, used.day),
    };
  });
  if (options.workspace === undefined) {
    for (const [name, used] of counts) {
      if (!keyNames.has(name)) callers.push({ name, key: false, ...used, quota: null, remaining: null, resets_at: null, budget: null, budget_remaining: NO_BUDGET });
    }
  }
  return { day, month, time_zone: serverTimeZone(), callers: callers.sort(byName) };
}
