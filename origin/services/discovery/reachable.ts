import { documentMarkers } from '../documents/bind.ts';
import { type ReachableQuery, type AccessCaller, reachableQueries } from '../../access/reachability.ts';
import type { Dialect } from '../../drivers/types.ts';
import type { AppDeps } from '../../deps.ts';
import { inspect } from '../../sql/index.ts';
import { selectColumns } from '../../sql/select-columns.ts';
import { analyzeTables } from '../../sql/tables.ts';
import { connections } from '../../store/schema/index.ts';
import { type DescriptionItem } from '../descriptions/fields.ts';
import { itemsOf } from '../descriptions/read.ts';
import { withListedValues } from '../parameter-values/shown.ts';
import { type Rules, parseDefinitions } from '../../../shared/parameters/index.ts';

/**
 * The published queries a caller reaches, as `/catalog` and `/openapi.json`
 * show them. What the SQL says is read here (write or read, undeclared
 * markers, the names of the columns it selects) and the text itself goes no
 * further: nothing past this module can put SQL into a discovery answer.
 */
export interface DiscoveredQuery {
  name: string;
  collection: string | null;
  workspace: string;
  /** The published version. */
  version: number;
  description: string | null;
  tags: string[];
  connectionName: string | null;
  /** The default connection's workspace (null: none saved under that name). */
  connectionWorkspace: string | null;
  /** Definitions as saved. */
  parameters: Record<string, unknown>;
  /** The parsed rules, listed values as each one's `enum` (parameter-values/shown.ts); null when the saved definitions no longer parse (shown as saved, typed as nothing). */
  rules: Rules | null;
  cacheTtl: number | null;
  /** `:markers` the SQL uses without declaring them: required, passed through as given. */
  undeclared: string[];
  /** The SQL performs a write the guard could allow (a refusal naming no write never runs at all). */
  write: boolean;
  /**
   * The result's columns as a plain SELECT names them (best effort; empty
   * when the text is not one), each with the default connection's
   * description of the column it reads, or null.
   */
  columns: Array<{ name: string; description: string | null }>;
}

/** As `/q/<name>` reads markers: in the default connection's dialect, postgres when there is none. */
const DEFAULT_DIALECT: Dialect = 'postgres';
const DIALECTS: readonly string[] = ['postgres', 'mysql', 'duckdb', 'sqlite', 'clickhouse', 'jdbc'];

export async function discoverQueries(deps: AppDeps, caller: AccessCaller): Promise<DiscoveredQuery[]> {
  const reachable = await reachableQueries(deps, caller);
  if (reachable.length === 0) return [];
  const rows = await deps.store.db.select({ id: connections.id, name: connections.name, db: connections.db }).from(connections);
  const dialects = new Map(rows.filter((row) => DIALECTS.includes(row.db)).map((row) => [row.name, row.db as Dialect]));
  const used = new Set(reachable.map((entry) => entry.version.connectionName));
  const described = new Map<string, DescriptionItem[]>();
  for (const row of rows) if (used.has(row.name)) described.set(row.name, await itemsOf(deps.store.db, row.id));
  const found = reachable.map((entry) => discovered(entry, dialects, described));
  for (const [index, q] of found.entries()) {
    if (!q.rules) continue;
    const { version } = reachable[index]!;
    q.rules = await withListedValues(deps, { query: q.name, version: q.version, connectionName: q.connectionName, mongoCollection: version.mongo?.collection ?? null }, q.rules);
  }
  return found;
}

/** The names a version binds: its SQL's `:markers`, or a document query's `":name"` strings in its filter. */
function markersOf(version: ReachableQuery['version'], info: { markers: readonly string[] } | null): readonly string[] {
  if (info) return info.markers;
  return version.queryType === 'mongo' ? documentMarkers(version.mongo?.filter ?? null) : [];
}

/**
 * A column's description: of the column it reads, in the tables the SQL
 * reads (the one its qualifier names when that is a table's name), when
 * exactly one description fits.
 */
function describedColumns(sql: string, dialect: Dialect, items: DescriptionItem[]): DiscoveredQuery['columns'] {
  const columns = selectColumns(sql, dialect);
  if (columns === null) return [];
  const tables = analyzeTables(sql, dialect).tables;
  return columns.map(({ name, source }) => {
    if (source === null || items.length === 0) return { name, description: null };
    const named = source.qualifier !== null && tables.includes(source.qualifier) ? [source.qualifier] : tables;
    const found = new Set(items.filter((item) => item.column === source.column && named.includes(item.table)).map((item) => item.description));
    return { name, description: found.size === 1 ? [...found][0]! : null };
  });
}

function discovered({ query, version, connectionWorkspace }: ReachableQuery, dialects: Map<string, Dialect>, described: Map<string, DescriptionItem[]>): DiscoveredQuery {
  const dialect = (version.connectionName && dialects.get(version.connectionName)) || DEFAULT_DIALECT;
  const parsed = parseDefinitions(version.parameters);
  const info = version.queryType === 'sql' && version.sql !== null ? inspect(version.sql, dialect) : null;
  return {
    name: query.name,
    collection: query.collection,
    workspace: query.workspace,
    version: version.version,
    description: version.description,
    tags: version.tags,
    connectionName: version.connectionName,
    connectionWorkspace,
    parameters: version.parameters,
    rules: 'rules' in parsed ? parsed.rules : null,
    cacheTtl: version.cacheTtl,
    undeclared: markersOf(version, info).filter((marker) => !Object.hasOwn(version.parameters, marker)),
    write: info !== null && !info.isRead && info.writeOps.length > 0,
    columns: info?.isRead && version.sql !== null ? describedColumns(version.sql, dialect, described.get(version.connectionName ?? '') ?? []) : [],
  };
}
