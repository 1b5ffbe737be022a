import type { Driver, RunRequest } from '../../drivers/types.ts';
import type { Engine } from '../../sql/engine.ts';
import { JsonValue, type Value } from '../../values.ts';

/**
 * What a statement would cost, from the engine's own planner: never from
 * running it. `source` is `planner` when the engine gave a figure, `none`
 * when it has no planner estimate to give (SQLite, H2 and other JDBC
 * engines, MongoDB for now).
 */
export interface Estimate {
  rows: number | null;
  cost: number | null;
  source: 'planner' | 'none';
}

/** The most rows a plan is read as (one per plan, or per table read). */
const PLAN_ROWS = 1000;

export const NO_ESTIMATE: Estimate = { rows: null, cost: null, source: 'none' };

interface Explain {
  /** Put before the statement: the engine plans it and answers the plan, never running it. */
  prefix: string;
  read(rows: Value[][], columns: string[]): { rows: number | null; cost: number | null };
}

/** A JSON plan, whether the driver gave it parsed (a json column) or as text. */
const json = (value: Value | undefined): unknown => (typeof value === 'string' ? JSON.parse(value) : value instanceof JsonValue ? value.value : value);
const numeric = (value: unknown): number | null => {
  const number = typeof value === 'string' ? Number(value) : typeof value === 'bigint' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : null;
};

/** Every object in a parsed plan, depth first, parents before children. */
function* objectsOf(node: unknown): Generator<Record<string, unknown>> {
  if (Array.isArray(node)) for (const item of node) yield* objectsOf(item);
  else if (node !== null && typeof node === 'object') {
    yield node as Record<string, unknown>;
    for (const value of Object.values(node)) yield* objectsOf(value);
  }
}

/**
 * MySQL's `rows_produced_per_join` of its last table is the result's rows;
 * MariaDB gives each table's `rows` and `filtered` (%), multiplied along the
 * join. MySQL's `query_cost` is its cost; MariaDB 10 has none.
 */
function mysqlPlan(plan: unknown): { rows: number | null; cost: number | null } {
  const tables = [...objectsOf(plan)].filter((node) => typeof node.table_name === 'string');
  const produced = tables.map((table) => numeric(table.rows_produced_per_join)).filter((rows) => rows !== null);
  let rows: number | null = produced.length > 0 ? produced[produced.length - 1]! : null;
  if (rows === null && tables.length > 0) {
    rows = tables.reduce((product, table) => product * (numeric(table.rows) ?? 1) * ((numeric(table.filtered) ?? 100) / 100), 1);
  }
  const cost = [...objectsOf(plan)].map((node) => numeric((node.cost_info as Record<string, unknown> | undefined)?.query_cost)).find((value) => value !== null) ?? null;
  return { rows, cost };
}

const EXPLAIN: Partial<Record<Engine, Explain>> = {
  postgres: {
    prefix: 'EXPLAIN (FORMAT JSON) ',
    read(rows) {
      const plan = (json(rows[0]?.[0]) as Array<{ Plan?: Record<string, unknown> }> | undefined)?.[0]?.Plan;
      return { rows: numeric(plan?.['Plan Rows']), cost: numeric(plan?.['Total Cost']) };
    },
  },
  mysql: { prefix: 'EXPLAIN FORMAT=JSON ', read: (rows) => mysqlPlan(json(rows[0]?.[0])) },
  duckdb: {
    prefix: 'EXPLAIN (FORMAT json) ',
    read(rows) {
      // One row per plan kind (`physical_plan`): its JSON is the tree of operators, the root first.
      for (const node of objectsOf(rows.map((row) => json(row[1])))) {
        const extra = node.extra_info as Record<string, unknown> | undefined;
        const cardinality = numeric(extra?.['Estimated Cardinality']);
        if (cardinality !== null) return { rows: cardinality, cost: null };
      }
      return { rows: null, cost: null };
    },
  },
  clickhouse: {
    // One row per table read, with the rows its parts hold (an upper bound: before any filter).
    prefix: 'EXPLAIN ESTIMATE ',
    read(rows, columns) {
      const at = columns.indexOf('rows');
      if (at < 0 || rows.length === 0) return { rows: null, cost: null };
      return { rows: rows.reduce((sum, row) => sum + (numeric(row[at]) ?? 0), 0), cost: null };
    },
  },
};

/**
 * The planner's estimate for `request` (the statement as the run would send
 * it, its page's window included), run as a read through the driver:
 * `EXPLAIN` without `ANALYZE` plans and never executes, in the read-only
 * transaction or session every read gets. Rows are capped at `rowsAtMost`
 * (the page, the statement's own window).
 */
export async function planEstimate(driver: Driver, engine: Engine, request: RunRequest, rowsAtMost: number | null): Promise<Estimate> {
  const explain = EXPLAIN[engine];
  if (!explain) return NO_ESTIMATE;
  // A plan is a few rows: read whole (PostgreSQL's portal cursor gives no rows for an EXPLAIN).
  const cursor = await driver.run({ ...request, text: explain.prefix + request.text, readOnly: true, batchSize: PLAN_ROWS, rowsAtMost: PLAN_ROWS });
  const rows: Value[][] = [];
  try {
    for await (const batch of cursor.batches) rows.push(...batch);
  } finally {
    await cursor.close();
  }
  const read = explain.read(rows, cursor.columns.map((column) => column.name));
  const capped = read.rows === null || rowsAtMost === null ? read.rows : Math.min(read.rows, rowsAtMost);
  return { rows: capped === null ? null : Math.round(capped), cost: read.cost, source: read.rows === null && read.cost === null ? 'none' : 'planner' };
}
