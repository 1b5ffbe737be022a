import { SluiceError } from '../../errors.ts';
import { formatDate } from '../../time.ts';
import type { AppDeps } from '../../deps.ts';
import { type CacheEntry, type CacheEntryInfo, type CacheMeta, secondsLeft } from '../../cache/response-cache.ts';
import { CACHE_KEY_PATTERN } from '../../../shared/cache-key.ts';

/** A cache entry as `/api/v1/cache/entries` lists it: never the body. */
export interface CacheEntryView {
  key: string;
  content_type: string;
  size_bytes: number;
  ttl_remaining_s: number;
  /** `created_at` and `expires_at` in the server's zone, as every timestamp; `ttl_s` is the `cache_ttl` it was stored under. */
  created_at: string;
  expires_at: string;
  ttl_s: number;
  meta: CacheMeta;
}

const view = (info: CacheEntryInfo, now: number): CacheEntryView => ({
  key: info.key,
  content_type: info.contentType,
  size_bytes: info.sizeBytes,
  ttl_remaining_s: secondsLeft(info.expiresAt, now),
  created_at: formatDate(new Date(info.createdAt)),
  expires_at: formatDate(new Date(info.expiresAt)),
  ttl_s: info.ttlSeconds,
  meta: info.meta,
});

const notFound = (key: string) => new SluiceError('cache_entry_not_found', `No cache entry "${key}"`);

/** Live entries, soonest expiry first (ties by key, so the order is stable). */
export async function listEntries(deps: Pick<AppDeps, 'cache'>): Promise<CacheEntryView[]> {
  const entries = await deps.cache.list();
  entries.sort((a, b) => a.expiresAt - b.expiresAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const now = Date.now();
  return entries.map((entry) => view(entry, now));
}

/** One live entry with its body; 404 `cache_entry_not_found`. */
export async function readEntry(deps: Pick<AppDeps, 'cache'>, key: string): Promise<CacheEntry> {
  const entry = CACHE_KEY_PATTERN.test(key) ? await deps.cache.get(key) : null;
  if (!entry) throw notFound(key);
  return entry;
}

/** Evicts one entry; 404 `cache_entry_not_found` when there is none. Not audited. */
export async function evictEntry(deps: Pick<AppDeps, 'cache'>, key: string): Promise<{ evicted: number }> {
  if (!CACHE_KEY_PATTERN.test(key) || !(await deps.cache.delete(key))) throw notFound(key);
  return { evicted: 1 };
}

/** Evicts every entry (every origin's, on a shared Redis). Not audited. */
export async function evictAll(deps: Pick<AppDeps, 'cache'>): Promise<{ evicted: number }> {
  return { evicted: await deps.cache.clear() };
}
