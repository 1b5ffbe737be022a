import { and, eq, inArray } from 'drizzle-orm';
import { SluiceError } from '../../errors.ts';
import { formatDate } from '../../time.ts';
import type { AppDeps } from '../../deps.ts';
import { type CacheEntry, type CacheEntryInfo, type CacheMeta, secondsLeft } from '../../cache/response-cache.ts';
import { queries } from '../../store/schema/index.ts';
import { CACHE_KEY_PATTERN } from '../../../shared/cache-key.ts';

type CacheDeps = Pick<AppDeps, 'cache' | 'store'>;
/** A workspace-scoped call (`workspace`) sees only entries of its workspace's saved queries; a plain one, every entry. */
type Scope = { workspace?: string };

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

/** Of `entries`, those of saved queries of `workspace` (all of them without one). */
async function ofWorkspace<T extends { meta: CacheMeta }>(deps: CacheDeps, entries: T[], workspace: string | undefined): Promise<T[]> {
  if (workspace === undefined || entries.length === 0) return entries;
  const names = [...new Set(entries.map((entry) => entry.meta.query))];
  const own = await deps.store.db
    .select({ name: queries.name })
    .from(queries)
    .where(and(eq(queries.workspace, workspace), inArray(queries.name, names)));
  const mine = new Set(own.map((row) => row.name));
  return entries.filter((entry) => mine.has(entry.meta.query));
}

/** Live entries, soonest expiry first (ties by key, so the order is stable). */
export async function listEntries(deps: CacheDeps, { workspace }: Scope = {}): Promise<CacheEntryView[]> {
  const entries = await ofWorkspace(deps, await deps.cache.list(), workspace);
  entries.sort((a, b) => a.expiresAt - b.expiresAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const now = Date.now();
  return entries.map((entry) => view(entry, now));
}

/** One live entry with its body; 404 `cache_entry_not_found` (also for another workspace's). */
export async function readEntry(deps: CacheDeps, key: string, { workspace }: Scope = {}): Promise<CacheEntry> {
  const entry = CACHE_KEY_PATTERN.test(key) ? await deps.cache.get(key) : null;
  if (!entry || (await ofWorkspace(deps, [entry], workspace)).length === 0) throw notFound(key);
  return entry;
}

/** Evicts one entry; 404 `cache_entry_not_found` when there is none (or it is another workspace's). Not audited. */
export async function evictEntry(deps: CacheDeps, key: string, { workspace }: Scope = {}): Promise<{ evicted: number }> {
  if (workspace !== undefined) await readEntry(deps, key, { workspace });
  if (!CACHE_KEY_PATTERN.test(key) || !(await deps.cache.delete(key))) throw notFound(key);
  return { evicted: 1 };
}

/** Evicts every entry (every origin's, on a shared Redis), or every entry of one workspace. Not audited. */
export async function evictAll(deps: CacheDeps, { workspace }: Scope = {}): Promise<{ evicted: number }> {
  if (workspace === undefined) return { evicted: await deps.cache.clear() };
  let evicted = 0;
  for (const entry of await ofWorkspace(deps, await deps.cache.list(), workspace)) if (await deps.cache.delete(entry.key)) evicted++;
  return { evicted };
}
