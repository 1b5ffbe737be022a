/**
 * `N/period` limits: `rate_limit` on keys and roles, `SLUICE_RATE_LIMIT`, and
 * (with `day` and `month` only) `quota`. Shared so origin, edge and the key
 * verbs parse them the same way.
 */
export const RATE_PERIODS = { second: 1, minute: 60, hour: 3600, day: 86_400 } as const;
export type RatePeriod = keyof typeof RATE_PERIODS;

export interface RateSpec {
  limit: number;
  period: RatePeriod;
  /** The window length in milliseconds. */
  windowMs: number;
}

const RATE = /^\s*([1-9]\d{0,8})\s*\/\s*(second|minute|hour|day)s?\s*$/i;

/** Parses `N/second|minute|hour|day` (a plural is accepted); null when malformed. */
export function parseRate(text: string): RateSpec | null {
  const match = RATE.exec(text);
  if (!match) return null;
  const period = match[2]!.toLowerCase() as RatePeriod;
  return { limit: Number(match[1]), period, windowMs: RATE_PERIODS[period] * 1000 };
}

/** The canonical text of a rate: `10/minute`. */
export const formatRate = (spec: Pick<RateSpec, 'limit' | 'period'>): string => `${spec.limit}/${spec.period}`;

export type QuotaPeriod = 'day' | 'month';

export interface QuotaSpec {
  limit: number;
  period: QuotaPeriod;
}

const QUOTA = /^\s*([1-9]\d{0,11})\s*\/\s*(day|month)s?\s*$/i;

/** Parses a quota `N/day` or `N/month` (calls per calendar period in the server's zone); null when malformed. */
export function parseQuota(text: string): QuotaSpec | null {
  const match = QUOTA.exec(text);
  if (!match) return null;
  return { limit: Number(match[1]), period: match[2]!.toLowerCase() as QuotaPeriod };
}

export const formatQuota = (spec: QuotaSpec): string => `${spec.limit}/${spec.period}`;
