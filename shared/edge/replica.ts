import type { SpentBudget } from '../access/budget.ts';
import type { KeyGrants } from '../access/grants.ts';

/**
 * The edge replica: what the edge Worker needs to answer at the edge,
 * pushed by the origin (origin/edge-sync/sync.ts) and held by the edge's
 * replica Durable Object (edge/replica/object.ts). The origin stays the
 * authority: everything here is derived from its store and settings.
 */

/** A scoped key as the edge checks it. */
export interface EdgeKey {
  id: number;
  name: string;
  /** Its grants reach only this workspace's queries and connections (shared/access/reach.ts). */
  workspace: string;
  grants: KeyGrants;
  active: boolean;
  /** When the key stops working (the end of its `expires_at` day in the origin's zone, ms); null never. */
  expiresAtMs: number | null;
  /** A day budget the origin found spent, until the day's end in its zone (ms): the edge refuses the key's runs itself. Null: none spent. */
  budgetSpent: (SpentBudget & { untilMs: number }) | null;
}

/** One secret of a key, by its SHA-256 hex: the current one, or the previous one during a rotation's grace. */
export interface EdgeSecret {
  keyId: number;
  previous: boolean;
  /** End of the previous secret's grace (ms); null for the current secret. */
  untilMs: number | null;
}

/** What the edge needs to answer a saved query from its cache; null when it never may (see origin/edge-sync/replica.ts). */
export interface EdgeQueryCache {
  /** The published version's parameter definitions, as stored (parsed at the edge by shared/parameters). */
  parameters: Record<string, unknown>;
  /** Every `:marker` of the SQL, in order of first appearance. */
  markers: string[];
}

/** A published saved query. */
export interface EdgeQuery {
  name: string;
  collection: string | null;
  workspace: string;
  /** The published version. */
  version: number;
  /** The published version's default connection; null when it has none. */
  connection: string | null;
  /** That connection's workspace; null when none is saved under its name. */
  connectionWorkspace: string | null;
  /** The published version's `cache_ttl` in seconds (0: not cached). */
  cacheTtl: number;
  cache: EdgeQueryCache | null;
}

/** Server-wide settings the edge answers by. */
export interface EdgeSettings {
  /** False while the origin is open (no server key, no scoped key, no administrator). */
  authenticationOn: boolean;
  /** SHA-256 hex of `SLUICE_API_KEY`; null when unset. */
  adminKeyHash: string | null;
  /** `SLUICE_RATE_LIMIT` as `N/period`; null when unset. */
  serverRateLimit: string | null;
  /** Response formats, the one used when none is asked, and paging limits, as the origin parses them. */
  formats: string[];
  defaultFormat: string;
  maxPageSize: number;
  defaultPageSize: number;
  /** `SLUICE_CORS_ORIGINS`. */
  corsOrigins: string[];
}

export interface ReplicaState {
  settings: EdgeSettings;
  /** By key id. */
  keys: Record<string, EdgeKey>;
  /** By the SHA-256 hex of the secret. */
  secrets: Record<string, EdgeSecret>;
  /** Published queries by name. */
  queries: Record<string, EdgeQuery>;
}

/** Entries that changed since the state the edge holds; null removes one. */
export interface ReplicaChanges {
  settings?: EdgeSettings;
  keys?: Record<string, EdgeKey | null>;
  secrets?: Record<string, EdgeSecret | null>;
  queries?: Record<string, EdgeQuery | null>;
}

/**
 * One push. `seq` must be above the edge's; a push of `changes` applies only
 * to the state numbered `base` (else the edge answers 409 with its `seq` and
 * the origin sends `full`). Every accepted push, changes or none, renews the
 * edge's lease for `leaseMs`. `evictCache` drops every response the edge cached.
 */
export interface ReplicaPush {
  seq: number;
  ts: number;
  leaseMs: number;
  full?: ReplicaState;
  base?: number;
  changes?: ReplicaChanges;
  evictCache?: boolean;
}

/** The edge's answer to a push: the sequence number it now holds. */
export interface PushAnswer {
  seq: number;
}

/** The longest lease an edge accepts, whatever a push asks. */
export const MAX_LEASE_MS = 10 * 60_000;
