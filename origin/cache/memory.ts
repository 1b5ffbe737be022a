import type { CacheEntry, CacheEntryInfo, CachedResponse, ResponseCache } from './response-cache.ts';

export interface MemoryCacheOptions {
  /** Budget for everything held: bodies plus each entry's metadata. */
  maxBytes: number;
  now?: () => number;
}

interface Held {
  entry: CacheEntry;
  /** What the entry counts against the budget. */
  bytes: number;
}

/** A rough size of an entry's metadata and key, so many tiny bodies cannot outgrow the budget. */
const OVERHEAD_BYTES = 256;

function weigh(key: string, response: CachedResponse): number {
  let bytes = OVERHEAD_BYTES + key.length + response.body.byteLength + response.contentType.length + response.etag.length;
  for (const [name, value] of Object.entries(response.headers)) bytes += name.length + value.length;
  bytes += response.meta.query.length + response.meta.connection.length + response.meta.format.length;
  return bytes;
}

/**
 * In-process LRU bounded by total bytes. A `Map` keeps recency order: a hit
 * moves its entry to the end, eviction takes from the front. An entry past its
 * TTL is never served (dropped when met); when room is needed, expired
 * entries go first, then the least recently used. An entry larger than the
 * whole budget is not stored.
 */
export class MemoryCache implements ResponseCache {
  readonly kind = 'memory';
  private readonly entries = new Map<string, Held>();
  private bytes = 0;
  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(options: MemoryCacheOptions) {
    this.maxBytes = options.maxBytes;
    this.now = options.now ?? Date.now;
  }

  /** Bytes currently counted against the budget. */
  get usedBytes(): number {
    return this.bytes;
  }

  async get(key: string): Promise<CacheEntry | null> {
    const held = this.entries.get(key);
    if (!held) return null;
    if (held.entry.expiresAt <= this.now()) {
      this.drop(key, held);
      return null;
    }
    this.entries.delete(key);
    this.entries.set(key, held);
    return held.entry;
  }

  async set(key: string, response: CachedResponse, ttlSeconds: number): Promise<void> {
    const previous = this.entries.get(key);
    if (previous) this.drop(key, previous);
    const bytes = weigh(key, response);
    if (bytes > this.maxBytes || ttlSeconds <= 0) return;
    const createdAt = this.now();
    this.makeRoom(bytes);
    this.entries.set(key, { entry: { ...response, createdAt, ttlSeconds, expiresAt: createdAt + ttlSeconds * 1000 }, bytes });
    this.bytes += bytes;
  }

  async delete(key: string): Promise<boolean> {
    const held = this.entries.get(key);
    if (!held) return false;
    this.drop(key, held);
    return held.entry.expiresAt > this.now();
  }

  async clear(): Promise<number> {
    const live = this.live().length;
    this.entries.clear();
    this.bytes = 0;
    return live;
  }

  async list(): Promise<CacheEntryInfo[]> {
    return this.live().map(([key, { entry }]) => ({
      key,
      contentType: entry.contentType,
      sizeBytes: entry.body.byteLength,
      createdAt: entry.createdAt,
      ttlSeconds: entry.ttlSeconds,
      expiresAt: entry.expiresAt,
      meta: entry.meta,
    }));
  }

  async close(): Promise<void> {
    this.entries.clear();
    this.bytes = 0;
  }

  /** Live entries; expired ones met on the way are dropped. */
  private live(): Array<[string, Held]> {
    const now = this.now();
    const live: Array<[string, Held]> = [];
    for (const [key, held] of [...this.entries]) {
      if (held.entry.expiresAt <= now) this.drop(key, held);
      else live.push([key, held]);
    }
    return live;
  }

  private makeRoom(bytes: number): void {
    if (this.bytes + bytes <= this.maxBytes) return;
    this.live();
    for (const [key, held] of this.entries) {
      if (this.bytes + bytes <= this.maxBytes) return;
      this.drop(key, held);
    }
  }

  private drop(key: string, held: Held): void {
    this.entries.delete(key);
    this.bytes -= held.bytes;
  }
}
