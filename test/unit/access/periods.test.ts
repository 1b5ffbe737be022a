import { describe, expect, it } from 'vitest';
import { periodEnd, periodKey, secondsToPeriodEnd } from '../../../origin/access/periods.ts';

/** Calendar days and months in the server's zone, whatever zone the test runs in. */

const instants = [Date.UTC(2026, 0, 1, 0, 30), Date.UTC(2026, 2, 29, 1, 30), Date.UTC(2026, 9, 25, 0, 59), Date.UTC(2026, 11, 31, 23, 59), Date.now()];

describe('periods', () => {
  it('names days YYYY-MM-DD and months YYYY-MM', () => {
    for (const t of instants) {
      expect(periodKey('day', t)).toMatch(/^\d{4}-\d\d-\d\d$/);
      expect(periodKey('month', t)).toBe(periodKey('day', t).slice(0, 7));
    }
  });

  it('ends a period at the first instant of the next one', () => {
    for (const t of instants) {
      for (const period of ['day', 'month'] as const) {
        const end = periodEnd(period, t);
        expect(end).toBeGreaterThan(t);
        expect(periodKey(period, end - 1)).toBe(periodKey(period, t));
        expect(periodKey(period, end)).not.toBe(periodKey(period, t));
      }
      expect(periodEnd('day', t) - t).toBeLessThanOrEqual(25 * 3600_000);
    }
  });

  it('counts whole seconds to the end, at least one', () => {
    const t = Date.now();
    const seconds = secondsToPeriodEnd('day', t);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBe(Math.max(1, Math.ceil((periodEnd('day', t) - t) / 1000)));
    expect(secondsToPeriodEnd('day', periodEnd('day', t) - 1)).toBe(1);
  });
});
