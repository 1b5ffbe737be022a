import { type AccessCaller, type AccessTarget, canReach, canRunDraft, publishedTarget } from '../../access/reachability.ts';
import { SluiceError } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Store } from '../../store/open.ts';
import type { QueryRow, QueryVersionRow } from '../../store/schema/index.ts';
import { type Rules, parseDefinitions } from '../../../shared/parameters/index.ts';
import { workspaceOfConnection } from '../connections/lookup.ts';
import { cachedDefinition, cachedVersion } from './definition-cache.ts';
import { versionNotFound } from './lookup.ts';
import { type VersionStatus, versionStatus } from './status.ts';

export interface Runnable {
  query: QueryRow;
  version: QueryVersionRow;
  status: VersionStatus;
  /** The version's parameter rules, parsed once per version row. */
  rules: Rules;
  /** The query as reachability sees it, with the published version's default connection. */
  target: AccessTarget;
}

/** Unknown and unpublished answer alike: the endpoint does not exist. */
export const notRunnable = (name: string) => new SluiceError('query_not_found', `Query "${name}" not found or not published`);

/**
 * Who may run a version: the published and previous ones anyone who reaches
 * the query; a draft (newer than the published one, or any while nothing is
 * published) only the admin key and administrators whose role may edit queries.
 */
export const mayRun = (caller: AccessCaller, status: VersionStatus, target: AccessTarget): boolean =>
  status !== 'draft' || canRunDraft(caller, target);

/**
 * The version `/q/<name>` runs: the published one, or `version` when asked.
 * Unknown, unpublished with none asked, or not reachable by this caller (as
 * `/catalog` lists it: through the published version's default connection):
 * 404 `query_not_found`. A version that does not exist, and a draft asked for
 * by a caller who may not run drafts, get the very same 404
 * `version_not_found`: drafts are not disclosed.
 */
export async function resolveRunnable(deps: Pick<AppDeps, 'store'>, name: string, version: number | undefined, caller: AccessCaller): Promise<Runnable> {
  const found = await cachedDefinition(deps.store, name);
  if (!found) throw notRunnable(name);
  const { query, published } = found;
  const connection = published?.connectionName ?? null;
  const target = publishedTarget(query, published, connection === null ? null : await workspaceOfConnection(deps, connection));
  if (!canReach(caller, target)) throw notRunnable(name);
  const wanted = version ?? query.publishedVersion;
  if (wanted === null) throw notRunnable(name);
  const row = published && published.version === wanted ? published : await cachedVersion(deps.store, query, wanted);
  const status = row ? versionStatus(row.version, query.publishedVersion) : null;
  if (!row || !status || !mayRun(caller, status, target)) throw versionNotFound(name, wanted);
  return { query, version: row, status, rules: rulesOf(deps.store, row), target };
}

/** Parsed rules per version row id, per store. Versions never change what they run (only cache_ttl). */
const ruleCache = new WeakMap<object, Map<number, Rules>>();
const RULE_CACHE_SIZE = 10_000;

function rulesOf(store: Pick<Store, 'db'>, row: QueryVersionRow): Rules {
  let cache = ruleCache.get(store);
  if (!cache) ruleCache.set(store, (cache = new Map()));
  const cached = cache.get(row.id);
  if (cached) return cached;
  const parsed = parseDefinitions(row.parameters);
  if ('errors' in parsed) {
    // Checked on save, so this one was saved under older rules (a pattern RE2 refuses): it fails closed until a new version is saved, and it is not the caller's fault.
    const problems = Object.entries(parsed.errors).map(([name, problem]) => `${name}: ${problem}`);
    throw new SluiceError('internal_error', `The saved parameter definitions of version ${row.version} are invalid (${problems.join('; ')}); save a new version`);
  }
  if (cache.size >= RULE_CACHE_SIZE) cache.clear();
  cache.set(row.id, parsed.rules);
  return parsed.rules;
}
