import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Vector-sized scan tasks for a stream's ordered parallel COPY (ADR 0017).
 *
 * A COPY keeps the statement's row order by buffering each scan task's rows
 * until every earlier task has been written. DuckDB scans a table one row
 * group (122,880 rows) per task, so with two threads the buffered rows
 * outgrow a small memory limit and the second thread mostly waits: 16 MB ran
 * no faster than one thread. `verify_parallelism` makes each task one
 * vector (2,048 rows): 20 MB then kept both threads busy, with the same
 * bytes in the same order (ADR 0017 has the rates).
 *
 * It also cuts sorts and hash joins into vector-sized pieces, which made a
 * 5M-row ORDER BY run for minutes instead of seconds, so it is only turned
 * on for plans made of scans, filters and projections alone.
 */

const STREAMING_OPERATORS = new Set(['SEQ_SCAN', 'TABLE_SCAN', 'FILTER', 'PROJECTION']);

interface PlanNode {
  name?: string;
  children?: PlanNode[];
}

function operators(nodes: PlanNode[], into: string[] = []): string[] {
  for (const node of nodes) {
    into.push(String(node.name));
    operators(node.children ?? [], into);
  }
  return into;
}

async function planOperators(connection: DuckDBConnection, text: string): Promise<string[]> {
  try {
    const explained = await connection.runAndReadAll(`EXPLAIN (FORMAT json) ${text}`);
    return operators(JSON.parse(String(explained.getRows()[0]?.[1] ?? '[]')) as PlanNode[]);
  } catch {
    // Not explainable: the COPY runs as DuckDB plans it, and reports its own errors.
    return [];
  }
}

/**
 * Whether `text` plans as a pure stream over tables. Asked on the
 * connection's shared instance, never on the stream's own: there the
 * statement may name the stream's pipe, and planning a read of it waits for
 * a writer that no COPY is yet there to be.
 */
export async function plansAsStream(connection: DuckDBConnection, text: string): Promise<boolean> {
  const names = await planOperators(connection, text);
  return names.length > 0 && names.every((name) => STREAMING_OPERATORS.has(name));
}

/** Vector-sized scan tasks for this session's statements. */
export async function useFineScanTasks(connection: DuckDBConnection): Promise<void> {
  await connection.run('PRAGMA verify_parallelism');
}
