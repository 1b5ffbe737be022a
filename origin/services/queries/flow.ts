import { eq } from 'drizzle-orm';
import type { Dialect } from '../../drivers/types.ts';
import type { AppDeps } from '../../deps.ts';
import { formatSql } from '../../sql/format.ts';
import { analyzeTables, type Join } from '../../sql/tables.ts';
import { connections } from '../../store/schema/index.ts';
import { findQuery, findVersion } from './lookup.ts';

/** What one version touches; see `sql/tables.ts` for the table labels. */
export type Flow =
  | { query: string; version: number; dialect: Dialect; tables: string[]; joins: Join[]; formatted_sql: string }
  /** Best effort: a version that cannot be analysed answers why, with no tables. */
  | { query: string; version: number; error: string; tables: [] };

const DIALECTS: readonly string[] = ['postgres', 'mysql', 'duckdb', 'sqlite', 'clickhouse', 'jdbc'];

/**
 * The tables and joins of one saved version and its SQL laid out for
 * reading. The SQL is read in the dialect of the version's connection (its
 * type now), postgres when it names none or the connection is gone. A
 * document-database version, a connection type with no SQL analysis, or SQL
 * the analysis cannot follow gives `error` and no tables: not a 4xx. Unknown
 * query or version: 404 `query_not_found` / `version_not_found`.
 */
export async function queryFlow(deps: AppDeps, name: string, versionNumber: number, { workspace }: { workspace?: string } = {}): Promise<Flow> {
  const db = deps.store.db;
  const query = await findQuery(db, name, { workspace });
  const version = await findVersion(db, query, versionNumber);
  const base = { query: query.name, version: version.version };
  if (version.queryType !== 'sql' || version.sql === null) {
    return { ...base, error: `a ${version.queryType === 'mongo' ? 'document-database' : version.queryType} query has no SQL to analyse`, tables: [] };
  }
  let dialect: Dialect = 'postgres';
  if (version.connectionName !== null) {
    const [row] = await db.select({ db: connections.db }).from(connections).where(eq(connections.name, version.connectionName));
    if (row && !DIALECTS.includes(row.db)) {
      return { ...base, error: `the SQL dialect of connection type "${row.db}" cannot be analysed`, tables: [] };
    }
    if (row) dialect = row.db as Dialect;
  }
  const analysis = analyzeTables(version.sql, dialect);
  if (analysis.error !== null) return { ...base, error: `the SQL could not be analysed: ${analysis.error}`, tables: [] };
  return { ...base, dialect, tables: analysis.tables, joins: analysis.joins, formatted_sql: formatSql(version.sql, dialect) };
}
