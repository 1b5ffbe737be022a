import type { BudgetLeft } from '../../../shared/access/budget.ts';
import { completeGrants } from '../../../shared/access/grants-input.ts';
import { type Budget, GRANT_FIELDS, type KeyGrants } from '../../../shared/access/grants.ts';
import { type QuotaPeriod, formatRate, parseQuota } from '../../../shared/access/rate.ts';
import { periodKey } from '../../access/periods.ts';
import { budgetLeft } from '../../access/day-budgets.ts';
import { type LiveUsage, periodUsage } from '../../access/usage.ts';
import type { AppDeps } from '../../deps.ts';
import type { ApiKeyRow } from '../../store/schema/index.ts';
import { formatDate } from '../../time.ts';
import { keyEtag } from './lookup.ts';

/** The limits a key really runs under: its own, narrowed by the server's. */
export interface EffectiveLimits {
  /** The key's `allow_writes` and `SLUICE_ALLOW_WRITES`. */
  allow_writes: boolean;
  allowed_write_ops: string[] | null;
  allowed_tables: string[] | null;
  max_rows: number | null;
  /** Seconds: the lower of the key's and `SLUICE_QUERY_TIMEOUT` (0 there disables the server's); null means none. */
  query_timeout: number | null;
  rate_limit: string | null;
  /** `SLUICE_RATE_LIMIT`, per client address; null when unset. */
  server_rate_limit: string | null;
  quota: string | null;
  max_concurrent: number | null;
  budget: Budget | null;
}

/** Calls, rows and database seconds in the current calendar period (the quota's, else the day) in the server's zone. */
export interface PeriodUsageView {
  period: QuotaPeriod;
  /** `YYYY-MM-DD` for a day, `YYYY-MM` for a month. */
  current: string;
  calls: number;
  rows: number;
  db_seconds: number;
  /** Calls left under the quota this period; null without a quota. */
  remaining: number | null;
  /** Rows and database seconds left of today's budget (whatever the period above); each null without that limit. */
  budget_remaining: BudgetLeft;
}

/** A key as the Management API shows it. Never its secret or a hash. */
export type KeyView = { name: string; workspace: string } & KeyGrants & {
    expires_at: string | null;
    active: boolean;
    expired: boolean;
    created_at: string;
    created_by: string | null;
    updated_at: string;
    created_from_role: string | null;
    last_used_at: string | null;
    /** End of the previous secret's grace while a rotation is pending, else null. */
    previous_expires_at: string | null;
    previous_last_used_at: string | null;
    effective_limits: EffectiveLimits;
    usage_this_period: PeriodUsageView;
    /** This origin's runs by the key since it started. */
    usage: LiveUsage;
  };

export interface KeyRead {
  key: KeyView;
  etag: string;
}

type ViewDeps = Pick<AppDeps, 'env' | 'store' | 'callerUsage'>;

/** Whether a key's `expires_at` date has passed: today in the server's zone is later. */
export const isExpired = (expiresAt: string | null, now: number = Date.now()): boolean =>
  expiresAt !== null && periodKey('day', now) > expiresAt;

/** A previous secret still inside its grace. */
export const rotationPending = (row: Pick<ApiKeyRow, 'previousSecretHash' | 'previousExpiresAt'>, now: number = Date.now()): boolean =>
  row.previousSecretHash !== null && row.previousExpiresAt !== null && row.previousExpiresAt.getTime() > now;

export function effectiveLimits(env: ViewDeps['env'], grants: KeyGrants): EffectiveLimits {
  const serverTimeout = env.SLUICE_QUERY_TIMEOUT > 0 ? env.SLUICE_QUERY_TIMEOUT : null;
  const timeouts = [grants.query_timeout, serverTimeout].filter((t): t is number => t !== null);
  return {
    allow_writes: grants.allow_writes && env.SLUICE_ALLOW_WRITES,
    allowed_write_ops: grants.allowed_write_ops,
    allowed_tables: grants.allowed_tables,
    max_rows: grants.max_rows,
    query_timeout: timeouts.length > 0 ? Math.min(...timeouts) : null,
    rate_limit: grants.rate_limit,
    server_rate_limit: env.SLUICE_RATE_LIMIT ? formatRate(env.SLUICE_RATE_LIMIT) : null,
    quota: grants.quota,
    max_concurrent: grants.max_concurrent,
    budget: grants.budget,
  };
}

async function usageThisPeriod(deps: ViewDeps, name: string, grants: KeyGrants, now: number): Promise<PeriodUsageView> {
  const quota = grants.quota ? parseQuota(grants.quota) : null;
  const period = quota?.period ?? 'day';
  const counts = await periodUsage(deps.store, name, period, now);
  const today = grants.budget && period !== 'day' ? await periodUsage(deps.store, name, 'day', now) : counts;
  return {
    period,
    current: periodKey(period, now),
    ...counts,
    remaining: quota ? Math.max(0, quota.limit - counts.calls) : null,
    budget_remaining: budgetLeft(grants.budget, today),
  };
}

const timestamp = (date: Date | null) => (date === null ? null : formatDate(date));

export async function keyView(deps: ViewDeps, row: ApiKeyRow, now: number = Date.now()): Promise<KeyView> {
  const grants = completeGrants(row.grants);
  const pending = rotationPending(row, now);
  return {
    name: row.name,
    workspace: row.workspace,
    ...grants,
    expires_at: row.expiresAt,
    active: row.active,
    expired: isExpired(row.expiresAt, now),
    created_at: formatDate(row.createdAt),
    created_by: row.createdBy,
    updated_at: formatDate(row.updatedAt),
    created_from_role: row.createdFromRole,
    last_used_at: timestamp(row.lastUsedAt),
    previous_expires_at: pending ? timestamp(row.previousExpiresAt) : null,
    previous_last_used_at: pending ? timestamp(row.previousLastUsedAt) : null,
    effective_limits: effectiveLimits(deps.env, grants),
    usage_this_period: await usageThisPeriod(deps, row.name, grants, now),
    usage: deps.callerUsage.live(row.name),
  };
}

export async function keyRead(deps: ViewDeps, row: ApiKeyRow): Promise<KeyRead> {
  return { key: await keyView(deps, row), etag: keyEtag(row) };
}

/** The settings of a key that audit entries show and diff: everything but secrets, hashes and usage. */
export function keySettings(row: Pick<ApiKeyRow, 'grants' | 'expiresAt' | 'active'>): Record<string, unknown> {
  const grants = completeGrants(row.grants);
  const settings: Record<string, unknown> = {};
  for (const field of GRANT_FIELDS) settings[field] = grants[field];
  return { ...settings, expires_at: row.expiresAt, active: row.active };
}

/** A create or delete entry's full snapshot. */
export function keySnapshot(row: Pick<ApiKeyRow, 'name' | 'workspace' | 'grants' | 'expiresAt' | 'active' | 'createdFromRole'>): Record<string, unknown> {
  return { name: row.name, workspace: row.workspace, ...keySettings(row), created_from_role: row.createdFromRole };
}
