import type { DuckDBConnection, DuckDBType } from '@duckdb/node-api';
import { uniqueColumnNames } from '../column-names.ts';
import { renderLinesSql } from './render.ts';
import { duckType } from './types.ts';
import type { ColumnMeta, LineFormat, RunRequest } from '../types.ts';

/** The statement's own columns, and the SQL that renders each of its rows as one finished line. */
export interface LinePlan {
  columns: ColumnMeta[];
  text: string;
}

/**
 * The push-down plan for DuckDB: prepares the statement (nothing runs) to
 * learn its columns, wraps it in the rendering SQL of duckdb-render.ts, and
 * prepares that too, so a statement that cannot be wrapped (SHOW, PRAGMA…)
 * falls back to the JS path here rather than failing later. Null on any
 * doubt; the statement's own errors surface when the JS path runs it.
 */
export async function duckLinePlan(connection: DuckDBConnection, request: RunRequest, format: LineFormat): Promise<LinePlan | null> {
  return duckWrappedPlan(connection, request, (types, names) =>
    renderLinesSql(request.text, types, format, uniqueColumnNames(names).map((name) => JSON.stringify(name))),
  );
}

/**
 * What the line and parquet push-downs share: prepares the statement
 * (nothing runs) to learn its columns, builds its wrapping with `wrap`, and
 * prepares that too. Null when `wrap` declines, or on any other doubt.
 */
export async function duckWrappedPlan(
  connection: DuckDBConnection,
  request: RunRequest,
  wrap: (types: DuckDBType[], names: string[]) => string | null,
): Promise<LinePlan | null> {
  try {
    const prepared = await connection.prepare(request.text);
    let types: DuckDBType[];
    let names: string[];
    try {
      types = Array.from({ length: prepared.columnCount }, (_, i) => prepared.columnType(i));
      names = Array.from({ length: prepared.columnCount }, (_, i) => prepared.columnName(i));
    } finally {
      prepared.destroySync();
    }
    const text = wrap(types, names);
    if (!text) return null;
    (await connection.prepare(text)).destroySync();
    const columns = names.map((name, i) => {
      const type = duckType(types[i]);
      return { name, dbType: type.name, kind: type.kind };
    });
    return { columns, text };
  } catch {
    return null;
  }
}
