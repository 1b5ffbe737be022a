import { canonicalJson } from '../../../shared/cache-key.ts';
import { DEFAULT_VALUES_TTL, type ParameterRule } from '../../../shared/parameters/index.ts';
import { responseCacheKey, responseEtag } from '../../cache/key.ts';
import type { CacheEntry, CachedResponse } from '../../cache/response-cache.ts';
import type { AppDeps } from '../../deps.ts';
import { RedisUnavailable } from '../../redis/breaker.ts';
import { readValues } from './read.ts';

/** A parameter's allowed values as last read: ascending, with when they were read. */
export interface ValueList {
  items: unknown[];
  count: number;
  refreshed_at: string;
}

/** The parameter whose list is meant: a saved version's rule on the connection its values are read from. */
export interface ListRef {
  query: string;
  version: number;
  connection: string;
  param: string;
  rule: ParameterRule;
  /** A mongo query's collection, whose `values_field` is listed. */
  collection?: string;
}

/**
 * The list as JSON answers and documents show it: an integer past 2^53 as
 * its digits (a JSON number would lose them), as dry runs show bound values.
 */
export const shownAsJson = (list: ValueList): ValueList => ({ ...list, items: list.items.map((item) => (typeof item === 'bigint' ? item.toString() : item)) });

/** A value outside the list reads the list again, but not more often than this per parameter (on every origin: the time is in the list). */
export const REFRESH_MS = 10_000;

/** Lists being read on this origin, by key: callers at the same moment share one read. */
const reading = new Map<string, Promise<ValueList>>();

/**
 * The list as the response cache's store holds it (memory, or Redis shared
 * by every origin), read from the database when it is not there or past
 * the rule's `values_ttl`. `refresh`: `always` reads it again now (the
 * values endpoint's `?refresh=true`); `stale` only when it was read
 * REFRESH_MS ago or more (a request value not in the list). A failing
 * cache counts as empty; a failing statement throws (read.ts).
 */
export async function valueList(deps: AppDeps, ref: ListRef, refresh: 'always' | 'stale' | 'never' = 'never'): Promise<ValueList> {
  const key = listKey(ref);
  if (refresh !== 'always') {
    const held = await deps.cache.get(key).catch(cacheFailed(deps, 'read'));
    const list = held ? listOf(held, ref.rule) : null;
    if (list && (refresh === 'never' || Date.now() - Date.parse(list.refreshed_at) < REFRESH_MS)) return list;
  }
  let pending = reading.get(key);
  if (!pending) {
    pending = readAndKeep(deps, ref, key).finally(() => reading.delete(key));
    reading.set(key, pending);
  }
  return pending;
}

async function readAndKeep(deps: AppDeps, ref: ListRef, key: string): Promise<ValueList> {
  const items = await readValues(deps, ref.connection, ref.rule, { collection: ref.collection });
  const list: ValueList = { items, count: items.length, refreshed_at: new Date().toISOString() };
  const body = new TextEncoder().encode(JSON.stringify({ ...list, items: items.map((item) => (typeof item === 'bigint' ? item.toString() : item)) }));
  const entry: CachedResponse = {
    body,
    contentType: 'application/json',
    etag: responseEtag(body),
    headers: {},
    // Listed with the cache's entries as the query's, format `values:<parameter>`.
    meta: { query: ref.query, version: ref.version, connection: ref.connection, format: `values:${ref.param}`, page: 1, page_size: items.length },
  };
  await deps.cache.set(key, entry, ref.rule.values_ttl ?? DEFAULT_VALUES_TTL).catch(cacheFailed(deps, 'write'));
  return list;
}

/** The key: the version, its connection, the parameter and the statement itself (a query made again under the same name never reads an old list). */
function listKey(ref: ListRef): string {
  return responseCacheKey({
    query: ref.query,
    version: ref.version,
    connection: ref.connection,
    params: { values: canonicalJson([ref.param, ref.rule.values_query ?? null, ref.rule.values_field ?? null, ref.collection ?? null, ref.rule.type ?? null]) },
    format: 'values',
    page: 1,
    pageSize: 0,
  });
}

/** A stored list back as values of the parameter's type (64-bit integers were stored as their digits). */
function listOf(entry: CacheEntry, rule: ParameterRule): ValueList | null {
  try {
    const stored = JSON.parse(new TextDecoder().decode(entry.body)) as ValueList;
    const items = rule.type === 'int' ? stored.items.map((item) => (typeof item === 'string' ? BigInt(item) : item)) : stored.items;
    return { items, count: stored.count, refreshed_at: stored.refreshed_at };
  } catch {
    return null;
  }
}

const cacheFailed = (deps: AppDeps, operation: string) => (err: unknown) => {
  // An outage is logged once, by the breaker, not once per request.
  if (!(err instanceof RedisUnavailable)) deps.logger.warn({ err: { message: (err as Error).message } }, `parameter values cache ${operation} failed`);
  return null;
};
