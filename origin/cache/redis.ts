import type { RedisBreaker } from '../redis/breaker.ts';
import type { CacheEntry, CacheEntryInfo, CacheMeta, CachedResponse, ResponseCache } from './response-cache.ts';

export interface RedisCacheOptions {
  /** The origin's Redis connection (redis/breaker.ts), shared with the rate limits and closed by its owner. */
  redis: RedisBreaker;
  /** Key prefix of everything this deployment stores; entries live under `<prefix>cache:<key>`. */
  prefix: string;
  /** Bodies larger than this are not stored (the same bound a memory cache has). */
  maxEntryBytes: number;
}

/** What is stored beside the body, in the same hash. */
interface StoredInfo {
  content_type: string;
  etag: string;
  headers: Record<string, string>;
  meta: CacheMeta;
  ttl: number;
  size: number;
}

const SCAN_COUNT = 500;

/** `*`, `?`, `[`, `]` and `\` are glob characters in a SCAN pattern. */
const globEscape = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');

/**
 * The cache shared by every origin on one Redis: each entry is a hash
 * `<prefix>cache:<key>` holding the body and its metadata (`info`, JSON),
 * written with its TTL in one MULTI, so Redis itself expires it and any
 * origin reads, lists or evicts what another stored. Lifetimes come from
 * Redis (`PTTL`), so the origins' clocks need not agree.
 *
 * While Redis is down every method throws `RedisUnavailable` at once (the
 * breaker logs the outage); `respondCached` treats that as a miss.
 */
export class RedisCache implements ResponseCache {
  readonly kind = 'redis';
  private readonly redis: RedisBreaker;
  private readonly namespace: string;
  private readonly maxEntryBytes: number;

  constructor(options: RedisCacheOptions) {
    this.namespace = `${options.prefix}cache:`;
    this.maxEntryBytes = options.maxEntryBytes;
    this.redis = options.redis;
  }

  private redisKey(key: string): string {
    return this.namespace + key;
  }

  async get(key: string): Promise<CacheEntry | null> {
    const k = this.redisKey(key);
    const results = await this.redis.run((redis) => redis.multi().hmgetBuffer(k, 'body', 'info').pttl(k).exec());
    if (!results) return null;
    const [[fieldsError, fields], [ttlError, pttl]] = results as [[Error | null, Array<Buffer | null>], [Error | null, number]];
    if (fieldsError) throw fieldsError;
    if (ttlError) throw ttlError;
    const [body, infoText] = fields;
    if (!body || !infoText || pttl <= 0) return null;
    const info = JSON.parse(infoText.toString('utf8')) as StoredInfo;
    const expiresAt = Date.now() + pttl;
    return {
      body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength),
      contentType: info.content_type,
      etag: info.etag,
      headers: info.headers,
      meta: info.meta,
      ttlSeconds: info.ttl,
      expiresAt,
      createdAt: expiresAt - info.ttl * 1000,
    };
  }

  async set(key: string, response: CachedResponse, ttlSeconds: number): Promise<void> {
    if (ttlSeconds <= 0 || response.body.byteLength > this.maxEntryBytes) return;
    const info: StoredInfo = {
      content_type: response.contentType,
      etag: response.etag,
      headers: response.headers,
      meta: response.meta,
      ttl: ttlSeconds,
      size: response.body.byteLength,
    };
    const k = this.redisKey(key);
    const body = Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength);
    await this.redis.run((redis) => redis.multi().del(k).hset(k, 'body', body, 'info', JSON.stringify(info)).pexpire(k, ttlSeconds * 1000).exec());
  }

  async delete(key: string): Promise<boolean> {
    return (await this.redis.run((redis) => redis.del(this.redisKey(key)))) > 0;
  }

  async clear(): Promise<number> {
    let evicted = 0;
    for await (const keys of this.scan()) {
      if (keys.length > 0) evicted += await this.redis.run((redis) => redis.unlink(...keys));
    }
    return evicted;
  }

  async list(): Promise<CacheEntryInfo[]> {
    const listed: CacheEntryInfo[] = [];
    const seen = new Set<string>();
    for await (const scanned of this.scan()) {
      // SCAN may return a key twice.
      const keys = scanned.filter((k) => !seen.has(k));
      keys.forEach((k) => seen.add(k));
      if (keys.length === 0) continue;
      const results =
        (await this.redis.run((redis) => {
          const pipeline = redis.pipeline();
          for (const k of keys) pipeline.hget(k, 'info').pttl(k);
          return pipeline.exec();
        })) ?? [];
      const now = Date.now();
      keys.forEach((k, i) => {
        const [infoError, infoText] = results[2 * i] as [Error | null, string | null];
        const [ttlError, pttl] = results[2 * i + 1] as [Error | null, number];
        // Gone or expired between the scan and the read.
        if (infoError || ttlError || !infoText || pttl <= 0) return;
        const info = JSON.parse(infoText) as StoredInfo;
        const expiresAt = now + pttl;
        listed.push({
          key: k.slice(this.namespace.length),
          contentType: info.content_type,
          sizeBytes: info.size,
          ttlSeconds: info.ttl,
          expiresAt,
          createdAt: expiresAt - info.ttl * 1000,
          meta: info.meta,
        });
      });
    }
    return listed;
  }

  /** The connection is the breaker owner's to close. */
  async close(): Promise<void> {}

  /** Batches of this deployment's cache keys (SCAN: never blocks Redis as KEYS would). */
  private async *scan(): AsyncGenerator<string[]> {
    const pattern = `${globEscape(this.namespace)}*`;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.run((redis) => redis.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT));
      cursor = next;
      yield keys;
    } while (cursor !== '0');
  }
}
