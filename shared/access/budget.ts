/** What is left of a key's day budget as counted when a call started; null where it has no such limit. */
export interface BudgetLeft {
  rows: number | null;
  db_seconds: number | null;
}

/**
 * A key's spent day budget as both runtimes answer it (429
 * `budget_exhausted`, docs/reference/budgets.md): the origin when it counts
 * the day, the edge for a key the origin reported spent.
 */
export interface SpentBudget {
  budget: 'rows_per_day' | 'db_seconds_per_day';
  /** The day's rows or database seconds so far. */
  spent: number;
  limit: number;
}

export const budgetExhaustedMessage = ({ budget, spent, limit }: SpentBudget): string =>
  `This API key's ${budget} budget is spent for today (${spent} of ${limit}); it renews at midnight in the server's time zone`;

/** The body's fields besides `error`; `code` is in it on every route family, as a budget's clients branch on it. */
export const budgetExhaustedExtras = ({ budget, spent, limit }: SpentBudget, retryAfter: number): Record<string, unknown> => ({
  code: 'budget_exhausted',
  budget,
  spent,
  limit,
  retry_after: retryAfter,
});

/** The headers of a run's answer for a key with a day budget: what was left when it started. */
export function budgetHeaders(left: BudgetLeft | null): Record<string, string> {
  const headers: Record<string, string> = {};
  if (left?.rows != null) headers['X-Budget-Rows-Remaining'] = String(left.rows);
  if (left?.db_seconds != null) headers['X-Budget-Seconds-Remaining'] = String(left.db_seconds);
  return headers;
}

/** A `budget_exhausted` refusal's headers: the spent budget has nothing left. */
export const spentBudgetHeaders = (budget: SpentBudget['budget']): Record<string, string> =>
  budgetHeaders(budget === 'rows_per_day' ? { rows: 0, db_seconds: null } : { rows: null, db_seconds: 0 });
