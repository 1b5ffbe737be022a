import { DurableObject } from 'cloudflare:workers';
import { type ReplicaChanges, type ReplicaPush, type ReplicaState, type EdgeKey, type EdgeQuery, type EdgeSecret, type EdgeSettings, MAX_LEASE_MS } from '../../shared/edge/replica.ts';
import type { EdgeBindings } from '../env.ts';

/** What a request needs of the replica, in one call. */
export type Lookup =
  | { fresh: false }
  | {
      fresh: true;
      settings: EdgeSettings;
      /** Part of every response-cache entry's address: bumped when the origin's cache is evicted. */
      cacheGeneration: number;
      /** The key of the credential presented, with the secret that matched; absent when none matched. */
      match?: { key: EdgeKey; secret: EdgeSecret };
      query?: EdgeQuery;
    };

export type ApplyResult = { status: 200 | 409; seq: number };

interface Meta {
  seq: number;
  leaseUntil: number;
  settings: EdgeSettings | null;
  cacheGeneration: number;
}

const META = 'meta';
const PREFIX = { keys: 'k:', secrets: 's:', queries: 'q:' } as const;
type Section = keyof typeof PREFIX;

/**
 * The one replica of a deployment (named `replica`): keys by secret
 * hash, published queries, settings, the sequence number of the last push
 * and the lease it renewed. Pushes and lookups run one at a time in this
 * object, so a lookup after a push returns always sees it. Entries are kept
 * in storage (one per entry) and in memory; lookups read memory only.
 */
export class ReplicaObject extends DurableObject<EdgeBindings> {
  private meta: Meta = { seq: 0, leaseUntil: 0, settings: null, cacheGeneration: 0 };
  private readonly entries = { keys: new Map<string, EdgeKey>(), secrets: new Map<string, EdgeSecret>(), queries: new Map<string, EdgeQuery>() };

  constructor(ctx: ConstructorParameters<typeof DurableObject<EdgeBindings>>[0], env: EdgeBindings) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const stored = await ctx.storage.list();
      for (const [name, value] of stored) {
        if (name === META) this.meta = value as Meta;
        for (const section of Object.keys(PREFIX) as Section[]) {
          if (name.startsWith(PREFIX[section])) (this.entries[section] as Map<string, unknown>).set(name.slice(PREFIX[section].length), value);
        }
      }
    });
  }

  /** Answers for one request: nothing but `fresh: false` once the lease lapsed or before the first push. */
  lookup(credential: string | null, queryName: string | null): Lookup {
    const { settings, seq, leaseUntil, cacheGeneration } = this.meta;
    if (seq === 0 || settings === null || Date.now() >= leaseUntil) return { fresh: false };
    const secret = credential === null ? undefined : this.entries.secrets.get(credential);
    const key = secret && this.entries.keys.get(String(secret.keyId));
    const query = queryName === null ? undefined : this.entries.queries.get(queryName);
    return { fresh: true, settings, cacheGeneration, ...(secret && key ? { match: { key, secret } } : {}), ...(query ? { query } : {}) };
  }

  /**
   * Applies a push whose signature the Worker verified: refused (409, with
   * the number held) unless its number is above the one held and, for
   * changes, its base is the number held; so no push is applied twice or out
   * of order. Every applied push renews the lease.
   */
  apply(push: ReplicaPush): ApplyResult {
    if (!Number.isSafeInteger(push.seq) || push.seq <= this.meta.seq) return { status: 409, seq: this.meta.seq };
    if (push.full) this.replace(push.full);
    else if (push.base === this.meta.seq && push.changes) this.change(push.changes);
    else return { status: 409, seq: this.meta.seq };
    this.meta = {
      seq: push.seq,
      leaseUntil: Date.now() + Math.min(Math.max(0, push.leaseMs), MAX_LEASE_MS),
      settings: push.full?.settings ?? push.changes?.settings ?? this.meta.settings,
      cacheGeneration: this.meta.cacheGeneration + (push.evictCache ? 1 : 0),
    };
    // Not awaited: writes made in one turn are committed together, and the answer waits for them.
    void this.ctx.storage.put(META, this.meta);
    return { status: 200, seq: push.seq };
  }

  private replace(state: ReplicaState): void {
    void this.ctx.storage.deleteAll();
    for (const section of Object.keys(PREFIX) as Section[]) {
      const map = this.entries[section] as Map<string, unknown>;
      map.clear();
      const stored: Array<[string, unknown]> = [];
      for (const [id, entry] of Object.entries(state[section])) {
        map.set(id, entry);
        stored.push([PREFIX[section] + id, entry]);
      }
      // The storage API takes at most 128 entries per put.
      for (let i = 0; i < stored.length; i += 128) void this.ctx.storage.put(Object.fromEntries(stored.slice(i, i + 128)));
    }
  }

  private change(changes: ReplicaChanges): void {
    for (const section of Object.keys(PREFIX) as Section[]) {
      const map = this.entries[section] as Map<string, unknown>;
      for (const [id, entry] of Object.entries(changes[section] ?? {})) {
        if (entry === null) {
          map.delete(id);
          void this.ctx.storage.delete([PREFIX[section] + id]);
        } else {
          map.set(id, entry);
          void this.ctx.storage.put(PREFIX[section] + id, entry);
        }
      }
    }
  }
}
