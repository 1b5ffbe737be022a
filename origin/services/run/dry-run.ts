import type { BudgetLeft } from '../../../shared/access/budget.ts';
import type { AppDeps } from '../../deps.ts';
import { countDryRun } from '../../observability/metrics.ts';
import { inspect } from '../../sql/index.ts';
import { tablesOrNull } from '../../sql/tables.ts';
import { askPlanner, budgetStanding } from './budget.ts';
import type { Estimate } from './estimate.ts';
import { prepare } from './prepare.ts';
import type { RunRequest } from './request.ts';

/** What `dry_run=true` answers: what the run would do and what the engine's planner says it would cost. */
export interface DryRunAnswer {
  dry_run: true;
  connection: string;
  dialect: string;
  /** The statement's leading keyword (`SELECT`, `INSERT`...), or `FIND` for a document query. */
  statement_type: string;
  /** The tables (or the collection) it names; null when they cannot be read from the text. */
  tables: string[] | null;
  /** The parameters as the run would bind them, after their rules and defaults. */
  parameters: Record<string, unknown>;
  estimate: Estimate;
  /** The key's budget the run would break before starting (`estimate_too_large`, `budget_exhausted`); null: none. */
  would_refuse: { code: string; error: string } | null;
}

/**
 * A dry run: the run path's checks, all of them and in the same order
 * (services/run/prepare.ts: reachability, parameters, the guard, grants,
 * paging and format), so that a refusal is exactly the run's; then the
 * engine's planner is asked instead of running the statement. Nothing is
 * admitted, cached, counted as a call or recorded in history; the metric
 * `sluice_dry_runs_total` counts it. The key's budget is read, not spent:
 * `would_refuse` names the refusal the run would meet, and what is left of
 * the day goes with the answer.
 */
export async function dryRun(deps: AppDeps, request: RunRequest): Promise<{ answer: DryRunAnswer; budget: BudgetLeft | null }> {
  const prepared = await prepare(deps, request);
  const { connection, dialect, language, estimate } = await askPlanner(deps, request, prepared);
  const standing = await budgetStanding(deps, request.caller, estimate);
  countDryRun({ connection, dialect, key: request.scope.key });
  const { engine } = prepared;
  const answer: DryRunAnswer =
    engine.kind === 'find' || language === null
      ? { dry_run: true, connection, dialect, statement_type: 'FIND', tables: engine.kind === 'find' ? [engine.input.query.collection] : null, parameters: {}, estimate, would_refuse: standing.wouldRefuse }
      : {
          dry_run: true,
          connection,
          dialect,
          statement_type: inspect(engine.input.sql, language).keyword,
          tables: tablesOrNull(engine.input.sql, language, { writes: true }),
          parameters: Object.fromEntries(Object.entries(engine.input.params).map(([key, value]) => [key, jsonValue(value)])),
          estimate,
          would_refuse: standing.wouldRefuse,
        };
  return { answer, budget: standing.left };
}
/** A bound value as JSON gives it back: 64-bit integers past 2^53 as their digits, bytes as base64, times as ISO text. */
function jsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(jsonValue);
  return value;
}
