import { listsValues, parseDefinitions } from '../../../shared/parameters/index.ts';
import type { AppDeps } from '../../deps.ts';
import type { QueryRow, QueryVersionRow } from '../../store/schema/index.ts';
import type { ValueList } from '../parameter-values/lists.ts';
import { findQuery, findVersion, readQuery, runStats } from './lookup.ts';
import { versionValueLists } from './parameter-values.ts';
import { type QueryRead, type RunStats, type VersionView, queryEtag, versionView } from './view.ts';

/** One version read back, with the query's ETag (a version changes only with its query). */
export interface VersionRead {
  version: VersionView & { name: string };
  etag: string;
}

export function versionRead(query: QueryRow, row: QueryVersionRow, stats: RunStats): VersionRead {
  return {
    version: { name: query.name, ...versionView(row, query.publishedVersion, stats.counts.get(row.version) ?? 0) },
    etag: queryEtag(query),
  };
}

/**
 * A query with every version and its SQL, and its ETag; 404
 * `query_not_found` (also for one of another workspace on a
 * workspace-scoped call). With `parameter_values` when the serving version
 * has parameters that list their values: each list as last read (null when
 * it cannot be read now), beside its rules.
 */
export async function getQuery(deps: AppDeps, name: string, { workspace }: { workspace?: string } = {}): Promise<QueryRead & { query: { parameter_values?: Record<string, ValueList | null> } }> {
  const { read, serving } = await deps.store.db.transaction(async (tx) => {
    const row = await findQuery(tx, name, { workspace });
    const read = await readQuery(tx, row);
    const number = read.query.published_version ?? read.query.versions[0]?.version;
    const parsed = parseDefinitions(read.query.parameters);
    const lists = 'rules' in parsed && Object.values(parsed.rules).some(listsValues);
    return { read, serving: lists && number !== undefined ? await findVersion(tx, row, number) : null };
  });
  return serving ? { ...read, query: { ...read.query, parameter_values: await versionValueLists(deps, name, serving) } } : read;
}

/** One version; 404 `query_not_found` or `version_not_found`. */
export async function getVersion(deps: AppDeps, name: string, version: number, { workspace }: { workspace?: string } = {}): Promise<VersionRead> {
  return deps.store.db.transaction(async (tx) => {
    const query = await findQuery(tx, name, { workspace });
    return versionRead(query, await findVersion(tx, query, version), await runStats(tx, query));
  });
}
