import { offsetMinutesAt } from '../time.ts';
import type { QuotaPeriod } from '../../shared/access/rate.ts';

/**
 * Calendar days and months in the server's zone (TZ, else the system zone):
 * the periods quotas and usage counters are kept per.
 */

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** The wall-clock date in the server's zone at `epochMs`, as UTC fields of a Date. */
const localDate = (epochMs: number) => new Date(epochMs + offsetMinutesAt(epochMs) * 60_000);

/** `YYYY-MM-DD` for a day, `YYYY-MM` for a month: the `period` column of usage_counters. */
export function periodKey(period: QuotaPeriod, epochMs: number): string {
  const d = localDate(epochMs);
  const month = `${String(d.getUTCFullYear()).padStart(4, '0')}-${pad2(d.getUTCMonth() + 1)}`;
  return period === 'month' ? month : `${month}-${pad2(d.getUTCDate())}`;
}

/** When the period holding `epochMs` ends (the next one starts), in epoch milliseconds. */
export function periodEnd(period: QuotaPeriod, epochMs: number): number {
  const d = localDate(epochMs);
  const nextLocal =
    period === 'month'
      ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
      : Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
  // The offset at the boundary itself, which differs from today's across a DST change.
  const guess = nextLocal - offsetMinutesAt(epochMs) * 60_000;
  return nextLocal - offsetMinutesAt(guess) * 60_000;
}

/** Whole seconds from `epochMs` to the end of its period (at least 1): a quota's `retry_after`. */
export const secondsToPeriodEnd = (period: QuotaPeriod, epochMs: number): number =>
  Math.max(1, Math.ceil((periodEnd(period, epochMs) - epochMs) / 1000));
