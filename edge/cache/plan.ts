import type { Context } from 'hono';
import { keyReaches } from '../../shared/access/reach.ts';
import type { CacheKeyParts } from '../../shared/cache-key.ts';
import { RESERVED_NAMES, type Rules, parseDefinitions, requestValues } from '../../shared/parameters/index.ts';
import type { EdgeEnv } from '../gate.ts';

/** The request options a cached answer may be asked with; any other option forwards. */
const PAGING = new Set(['format', 'page', 'page_size']);
const RESERVED: ReadonlySet<string> = new Set(RESERVED_NAMES);
const WHOLE = /^[1-9]\d{0,8}$/;

/** Parsed rules per published version (a version's definitions never change), bounded. */
const rulesMemo = new Map<string, Rules | null>();
const RULES_MEMO_MAX = 1000;

function rulesOf(name: string, version: number, definitions: Record<string, unknown>): Rules | null {
  const memo = `${version}|${name}`;
  let rules = rulesMemo.get(memo);
  if (rules === undefined) {
    const parsed = parseDefinitions(definitions);
    rules = 'errors' in parsed ? null : parsed.rules;
    if (rulesMemo.size >= RULES_MEMO_MAX) rulesMemo.clear();
    rulesMemo.set(memo, rules);
  }
  return rules;
}

/**
 * The response-cache key of a `GET /q/<name>` the edge may answer from its
 * cache, or null when the request must go to the origin. The edge answers
 * only when it reaches exactly the decision the origin would before its own
 * cache (origin/services/run/prepare-saved.ts), and otherwise forwards:
 *
 * - the replica is fresh and the caller is the server key (or the server
 *   is open) or a scoped key the edge verified, without `quota`,
 *   `max_concurrent` (both counted by the origin on every call, hits
 *   included), a `budget` (checked by the origin before every call),
 *   `allowed_tables` or `max_rows`;
 * - the query is published with a `cache_ttl` and the origin marked its
 *   published version cacheable at the edge (one read statement on an
 *   active connection; see origin/edge-sync/replica.ts), and the key's grants
 *   reach it on its default connection, both of the key's workspace
 *   (shared/access/reach.ts);
 * - the request asks nothing but parameters, `format`, `page` and
 *   `page_size`, each given once, in canonical form, within the limits,
 *   and no asynchronous answer (`Prefer: respond-async`: a stored result);
 * - its parameters pass the rules (shared/parameters): the key holds their
 *   resolved values, as on the origin.
 */
export function cachePlan(c: Context<EdgeEnv>): { parts: CacheKeyParts; ttl: number } | null {
  const { lookup, caller } = c.get('gate');
  if (!lookup.fresh || caller.kind === 'origin') return null;
  if (/respond-async/i.test(c.req.header('prefer') ?? '')) return null;
  const query = lookup.query;
  if (!query || query.name !== c.req.param('name') || !query.cache || query.cacheTtl <= 0 || query.connection === null) return null;
  if (caller.kind === 'key') {
    const grants = caller.key.grants;
    if (grants.quota !== null || grants.max_concurrent !== null || grants.budget !== null || grants.allowed_tables !== null || grants.max_rows !== null) return null;
    const target = {
      name: query.name,
      collection: query.collection,
      workspace: query.workspace,
      connectionName: query.connection,
      connectionWorkspace: query.connectionWorkspace,
    };
    if (!keyReaches(caller.key, target)) return null;
  }

  const settings = lookup.settings;
  // Entries, then fromEntries: an argument named `__proto__` stays an own key.
  const supplied: Array<[string, string]> = [];
  let format = settings.defaultFormat;
  let page = 1;
  let pageSize = settings.defaultPageSize;
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (values.length !== 1) return null;
    const value = values[0]!;
    if (!RESERVED.has(name)) supplied.push([name, value]);
    else if (!PAGING.has(name)) return null;
    else if (name === 'format') {
      if (!settings.formats.includes(value)) return null;
      format = value;
    } else {
      if (!WHOLE.test(value)) return null;
      if (name === 'page') page = Number(value);
      else if (Number(value) > settings.maxPageSize) return null;
      else pageSize = Number(value);
    }
  }

  const rules = rulesOf(query.name, query.version, query.cache.parameters);
  if (rules === null) return null;
  const resolved = requestValues({ rules, markers: query.cache.markers, supplied: Object.fromEntries(supplied), source: 'query' });
  if ('errors' in resolved) return null;
  return {
    parts: { query: query.name, version: query.version, connection: query.connection, params: resolved.values, format, page, pageSize },
    ttl: query.cacheTtl,
  };
}
