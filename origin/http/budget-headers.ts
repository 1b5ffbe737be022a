import type { BudgetLeft } from '../../shared/access/budget.ts';
import type { SluiceError } from '../errors.ts';

/** The headers of a run's answer for a key with a day budget: what was left when it started (docs/reference/budgets.md). */
export function budgetHeaders(left: BudgetLeft | null): Record<string, string> {
  const headers: Record<string, string> = {};
  if (left?.rows != null) headers['X-Budget-Rows-Remaining'] = String(left.rows);
  if (left?.db_seconds != null) headers['X-Budget-Seconds-Remaining'] = String(left.db_seconds);
  return headers;
}

/** A `budget_exhausted` refusal: the spent budget has nothing left. */
export function spentBudgetHeaders(err: SluiceError): Record<string, string> {
  if (err.code !== 'budget_exhausted') return {};
  return budgetHeaders(err.extras.budget === 'rows_per_day' ? { rows: 0, db_seconds: null } : { rows: null, db_seconds: 0 });
}
