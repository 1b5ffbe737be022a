import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Logger } from '../observability/logger.ts';
import type { Store } from '../store/open.ts';
import { adminTokens, administrators, apiKeys } from '../store/schema/index.ts';

/**
 * `last_used_at` of keys (and `previous_last_used_at` for a previous secret)
 * and tokens, and `last_seen_at` of administrators: written at most once a
 * minute each (spec, Authentication 9), off the request path. This process
 * remembers when it last wrote each one, and the write itself only moves a
 * value older than a minute, so several origins together still write at
 * most about once a minute. These columns are not part of an ETag.
 */

const INTERVAL_MS = 60_000;
const MAX_REMEMBERED = 100_000;

type Target = 'key' | 'previous' | 'token' | 'administrator';

export class LastUsed {
  private readonly written = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly logger?: Logger,
  ) {}

  key(id: number, previous: boolean): void {
    this.touch(previous ? 'previous' : 'key', String(id));
  }

  token(id: string, administratorId: number): void {
    this.touch('token', id);
    this.touch('administrator', String(administratorId));
  }

  private touch(target: Target, id: string): void {
    const now = Date.now();
    const at = `${target}:${id}`;
    const last = this.written.get(at);
    if (last !== undefined && now - last < INTERVAL_MS) return;
    if (this.written.size >= MAX_REMEMBERED) this.written.clear();
    this.written.set(at, now);
    this.write(target, id).catch((err: Error) => this.logger?.warn({ target, err: err.message }, 'could not record last use'));
  }

  private async write(target: Target, id: string): Promise<void> {
    const db = this.store.db;
    const stale = sql`now() - interval '1 minute'`;
    switch (target) {
      case 'key':
        await db
          .update(apiKeys)
          .set({ lastUsedAt: sql`now()` })
          .where(and(eq(apiKeys.id, Number(id)), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, stale))));
        return;
      case 'previous':
        await db
          .update(apiKeys)
          .set({ previousLastUsedAt: sql`now()` })
          .where(and(eq(apiKeys.id, Number(id)), or(isNull(apiKeys.previousLastUsedAt), lt(apiKeys.previousLastUsedAt, stale))));
        return;
      case 'token':
        await db
          .update(adminTokens)
          .set({ lastUsedAt: sql`now()` })
          .where(and(eq(adminTokens.id, id), or(isNull(adminTokens.lastUsedAt), lt(adminTokens.lastUsedAt, stale))));
        return;
      case 'administrator':
        await db
          .update(administrators)
          .set({ lastSeenAt: sql`now()` })
          .where(and(eq(administrators.id, Number(id)), or(isNull(administrators.lastSeenAt), lt(administrators.lastSeenAt, stale))));
        return;
    }
  }
}

const byStore = new WeakMap<Store, LastUsed>();

export function lastUsed(deps: { store: Store; logger?: Logger }): LastUsed {
  let tracker = byStore.get(deps.store);
  if (!tracker) {
    tracker = new LastUsed(deps.store, deps.logger);
    byStore.set(deps.store, tracker);
  }
  return tracker;
}
