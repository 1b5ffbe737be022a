import type { BudgetLeft } from '../../../shared/access/budget.ts';
import type { Caller } from '../../access/caller.ts';
import { budgetExhausted } from '../../access/day-budgets.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import type { Engine } from '../../sql/engine.ts';
import { ownLimit, plan } from '../../sql/index.ts';
import { connectionForRun } from '../connections/lookup.ts';
import { type Estimate, NO_ESTIMATE, planEstimate } from './estimate.ts';
import type { Prepared } from './prepare.ts';
import type { RunRequest } from './request.ts';
import { sqlDriver } from './statement.ts';

/**
 * A key's budget before a run (docs/reference/budgets.md): the planner's
 * estimate against `max_estimated_rows`, and the day's rows and database
 * seconds against `rows_per_day` and `db_seconds_per_day` (counted by
 * access/usage.ts, which refuses a spent day at admission).
 */

/** What the planner says of a prepared run, with the connection facts a dry run reports. */
export interface Planned {
  connection: string;
  dialect: string;
  /** The SQL language the statement is read in (a JDBC connection's engine, else its dialect); null for a document query. */
  language: Engine | null;
  estimate: Estimate;
}

/**
 * The engine planner's estimate for a prepared run, its window as the run
 * would send it (services/run/estimate.ts): a document query has none.
 */
export async function askPlanner(deps: AppDeps, request: Pick<RunRequest, 'signal'>, { engine }: Prepared): Promise<Planned> {
  if (engine.kind === 'find') return { connection: engine.input.connection, dialect: 'mongodb', language: null, estimate: NO_ESTIMATE };
  const { input } = engine;
  const { name, settings } = await connectionForRun(deps, input.connection);
  const driver = sqlDriver(deps.drivers.get(name, settings), name);
  const language = driver.engine ?? driver.dialect;
  const planned = plan(input.sql, driver.dialect, input.params, input.options.paging);
  const estimate = await planEstimate(
    driver,
    language,
    { text: planned.text, values: planned.values, readOnly: true, timeoutMs: input.options.timeoutMs, signal: request.signal, batchSize: 1 },
    smallest(input.options.paging?.pageSize ?? null, ownLimit(input.sql, driver.dialect, input.params)),
  );
  return { connection: name, dialect: driver.dialect, language, estimate };
}

const smallest = (...bounds: Array<number | null>): number | null => {
  const known = bounds.filter((bound): bound is number => bound !== null);
  return known.length > 0 ? Math.min(...known) : null;
};

const maxEstimatedRows = (caller: Pick<Caller, 'key'>): number | null => caller.key?.grants.budget?.max_estimated_rows ?? null;

const estimateTooLarge = (estimate: Estimate, limit: number) =>
  new SluiceError('estimate_too_large', `The planner estimates ${estimate.rows} rows, more than this API key's max_estimated_rows (${limit}); narrow the query or page it`, {
    code: 'estimate_too_large',
    estimate,
    limit,
  });

/** Whether an estimate breaks the key's `max_estimated_rows` (an engine with no estimate never does). */
const overEstimate = (caller: Pick<Caller, 'key'>, estimate: Estimate): SluiceError | null => {
  const limit = maxEstimatedRows(caller);
  return limit !== null && estimate.rows !== null && estimate.rows > limit ? estimateTooLarge(estimate, limit) : null;
};

/**
 * Refuses a run of a key with `max_estimated_rows` whose planner estimate
 * is above it (403 `estimate_too_large`), before anything runs. Only such a
 * key pays the planner call.
 */
export async function refuseOverEstimate(deps: AppDeps, request: RunRequest, prepared: Prepared): Promise<void> {
  if (maxEstimatedRows(request.caller) === null) return;
  const refusal = overEstimate(request.caller, (await askPlanner(deps, request, prepared)).estimate);
  if (refusal) throw refusal;
}

/** A dry run's view of the budget: the refusal the run would meet first, and what is left of the day. */
export interface BudgetStanding {
  wouldRefuse: { code: string; error: string } | null;
  left: BudgetLeft | null;
}

/** What a run with this estimate would meet: `estimate_too_large` first (it is checked first), then a spent day. */
export async function budgetStanding(deps: AppDeps, caller: Caller, estimate: Estimate): Promise<BudgetStanding> {
  const tooLarge = overEstimate(caller, estimate);
  const check = await deps.callerUsage.checkBudget(caller);
  const spent = check?.exhausted ? budgetExhausted(check) : null;
  const refusal = tooLarge ?? spent;
  return { wouldRefuse: refusal ? { code: refusal.code, error: refusal.message } : null, left: check?.left ?? null };
}
