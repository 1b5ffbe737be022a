import type { AppDeps } from '../../deps.ts';
import { countDryRun } from '../../observability/metrics.ts';
import { inspect, plan } from '../../sql/index.ts';
import { tablesOrNull } from '../../sql/tables.ts';
import { connectionForRun } from '../connections/lookup.ts';
import { type Estimate, NO_ESTIMATE, planEstimate } from './estimate.ts';
import { prepare } from './prepare.ts';
import type { RunRequest } from './request.ts';
import { sqlDriver } from './statement.ts';

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
  /** A limit the run would break before starting; null: none (per-key budgets come later). */
  would_refuse: null;
}

/**
 * A dry run: the run path's checks, all of them and in the same order
 * (services/run/prepare.ts: reachability, parameters, the guard, grants,
 * paging and format), so that a refusal is exactly the run's; then the
 * engine's planner is asked instead of running the statement. Nothing is
 * admitted, cached, counted as a call or recorded in history; the metric
 * `sluice_dry_runs_total` counts it.
 */
export async function dryRun(deps: AppDeps, request: RunRequest): Promise<DryRunAnswer> {
  const prepared = await prepare(deps, request);
  const { engine } = prepared;
  if (engine.kind === 'find') {
    const connection = engine.input.connection;
    countDryRun({ connection, dialect: 'mongodb', key: request.scope.key });
    return { dry_run: true, connection, dialect: 'mongodb', statement_type: 'FIND', tables: [engine.input.query.collection], parameters: {}, estimate: NO_ESTIMATE, would_refuse: null };
  }
  const { input } = engine;
  const { name, settings } = await connectionForRun(deps, input.connection);
  const driver = sqlDriver(deps.drivers.get(name, settings), name);
  const language = driver.engine ?? driver.dialect;
  const planned = plan(input.sql, driver.dialect, input.params, input.options.paging);
  const estimate = await planEstimate(
    driver,
    language,
    { text: planned.text, values: planned.values, readOnly: true, timeoutMs: input.options.timeoutMs, signal: request.signal, batchSize: 1 },
    input.options.paging?.pageSize ?? null,
  );
  countDryRun({ connection: name, dialect: driver.dialect, key: request.scope.key });
  return {
    dry_run: true,
    connection: name,
    dialect: driver.dialect,
    statement_type: inspect(input.sql, language).keyword,
    tables: tablesOrNull(input.sql, language, { writes: true }),
    parameters: Object.fromEntries(Object.entries(input.params).map(([key, value]) => [key, jsonValue(value)])),
    estimate,
    would_refuse: null,
  };
}

/** A bound value as JSON gives it back: 64-bit integers past 2^53 as their digits, bytes as base64, times as ISO text. */
function jsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(jsonValue);
  return value;
}
