/** Reading parquet back with DuckDB (read_parquet) in tests. */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

let connection: Promise<DuckDBConnection> | undefined;

async function connect(): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1', memory_limit: '256MB' });
  const c = await instance.connect();
  await c.run("SET TimeZone = 'UTC'");
  return c;
}

/** Rows as JSON-ish values (bigints and decimals as strings), plus column names and types. */
export async function duckQuery(sql: string): Promise<{ rows: unknown[][]; names: string[] }> {
  connection ??= connect();
  const reader = await (await connection).runAndReadAll(sql);
  return { rows: reader.getRowsJson(), names: reader.columnNames() };
}

export async function duckTypes(path: string): Promise<Record<string, string>> {
  const { rows } = await duckQuery(`DESCRIBE SELECT * FROM read_parquet('${path}')`);
  return Object.fromEntries(rows.map((r) => [String(r[0]), String(r[1])]));
}
