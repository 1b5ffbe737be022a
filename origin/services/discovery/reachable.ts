import { type ReachableQuery, type AccessCaller, reachableQueries } from '../../access/reachability.ts';
import type { Dialect } from '../../drivers/types.ts';
import type { AppDeps } from '../../deps.ts';
import { inspect } from '../../sql/index.ts';
import { connections } from '../../store/schema/index.ts';
import { type Rules, parseDefinitions } from '../../../shared/parameters/index.ts';

/**
 * The published queries a caller reaches, as `/catalog` and `/openapi.json`
 * show them. What the SQL says is read here (write or read, undeclared
 * markers) and the text itself goes no further: nothing past this module can
 * put SQL into a discovery answer.
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
  /** The parsed rules; null when the saved definitions no longer parse (shown as saved, typed as nothing). */
  rules: Rules | null;
  cacheTtl: number | null;
  /** `:markers` the SQL uses without declaring them: required, passed through as given. */
  undeclared: string[];
  /** The SQL performs a write the guard could allow (a refusal naming no write never runs at all). */
  write: boolean;
}

/** As `/q/<name>` reads markers: in the default connection's dialect, postgres when there is none. */
const DEFAULT_DIALECT: Dialect = 'postgres';
const DIALECTS: readonly string[] = ['postgres', 'mysql', 'duckdb', 'sqlite', 'clickhouse', 'jdbc'];

export async function discoverQueries(deps: Pick<AppDeps, 'store'>, caller: AccessCaller): Promise<DiscoveredQuery[]> {
  const reachable = await reachableQueries(deps, caller);
  if (reachable.length === 0) return [];
  const rows = await deps.store.db.select({ name: connections.name, db: connections.db }).from(connections);
  const dialects = new Map(rows.filter((row) => DIALECTS.includes(row.db)).map((row) => [row.name, row.db as Dialect]));
  return reachable.map((entry) => discovered(entry, dialects));
}

function discovered({ query, version, connectionWorkspace }: ReachableQuery, dialects: Map<string, Dialect>): DiscoveredQuery {
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
    undeclared: info ? info.markers.filter((marker) => !Object.hasOwn(version.parameters, marker)) : [],
    write: info !== null && !info.isRead && info.writeOps.length > 0,
  };
}
