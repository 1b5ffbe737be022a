import type { Env as HonoEnv } from 'hono';
import type { Logger } from '../observability/logger.ts';
import type { ResponseCache } from '../cache/response-cache.ts';
import type { DriverRegistry } from '../drivers/registry.ts';
import type { Env } from '../env.ts';
import type { KeyGrants } from '../../shared/access/grants.ts';
import type { AdminRole } from '../access/capabilities.ts';
import type { CallerUsage } from '../access/usage.ts';
import type { RateLimiter } from '../access/rate-limit/limiter.ts';
import type { SignInVerifier } from '../access/jwt.ts';
import type { ConnectionUsage } from '../services/connections/usage.ts';
import type { HistoryRecorder } from '../services/history/recorder.ts';
import type { Store } from '../store/open.ts';
import type { EdgeSync } from '../edge/sync.ts';
import type { CallerAssertion } from '../../shared/edge/protocol.ts';

/**
 * How the caller authenticated: `open` (no key configured: everyone is the
 * administrator), `break-glass` (the server key `SLUICE_API_KEY`), `key` (a
 * scoped API key), `token` (a named administrator's token), `anonymous` (no
 * valid credential, only possible on a public endpoint).
 */
export type CallerVia = 'open' | 'break-glass' | 'key' | 'token' | 'anonymous';

/** A scoped key that authenticated, with the grants it runs under. */
export interface CallerKey {
  id: number;
  name: string;
  /** Where the key lives: its grants reach only this workspace's connections and queries. */
  workspace: string;
  grants: KeyGrants;
}

/** A named administrator that authenticated with one of their tokens. */
export interface CallerAdministrator {
  id: number;
  name: string;
  /** Server-wide role; null means only workspace memberships give roles. */
  role: AdminRole | null;
  /** Role per workspace the administrator is a member of. */
  memberships: Record<string, AdminRole>;
  tokenId: string;
}

/** Who is calling. */
export interface Caller {
  /** `admin` for the server key, the key's or administrator's own name, or `-` (open server, anonymous). */
  name: string;
  /** Unrestricted: the server key, or anyone on an open server. Reaches every query, runs drafts, holds every capability. */
  admin: boolean;
  via: CallerVia;
  key?: CallerKey;
  administrator?: CallerAdministrator;
}

/** Everything a route or service needs, built once in `main.ts` and passed in. */
export interface AppDeps {
  env: Env;
  store: Store;
  drivers: DriverRegistry;
  usage: ConnectionUsage;
  /** Per-caller calls and rows, `max_concurrent` and `quota` admission (origin/access/usage.ts). */
  callerUsage: CallerUsage;
  /** Rate-limit counts: process memory, or Redis shared by every origin. */
  rateLimiter: RateLimiter;
  /** Verifies sign-in tokens, whose claims feed `from_claim` parameters. */
  signIn: SignInVerifier;
  /** Run history: queued in memory, written in batches off the request path. */
  history: HistoryRecorder;
  /** Saved-query responses with a `cache_ttl`: process memory, or Redis shared by every origin. */
  cache: ResponseCache;
  logger: Logger;
  version: string;
  /** Pushes the directory to the edge Worker (SLUICE_EDGE_URL); absent without an edge. */
  edgeSync?: EdgeSync;
}

export interface AppEnv extends HonoEnv {
  Variables: {
    deps: AppDeps;
    requestId: string;
    caller: Caller;
    /** The client's address: the socket peer, or from X-Forwarded-For under SLUICE_TRUST_PROXY (http/client-address.ts). */
    clientIp: string;
    clientScheme: 'http' | 'https';
    /** The workspace a Management API call acts in: `default` unless the path is `/w/<workspace>/api/v1/...`. */
    workspace: string;
    /** True on a `/w/<workspace>/api/v1/...` path: lists show, and names find, only that workspace's objects. */
    workspaceScoped: boolean;
    /** Set on a request the edge forwarded, once its assertion verified (origin/edge/assertion.ts). */
    edge?: CallerAssertion;
    /** Set by a paged run once its page is serialised; the access line reports it. */
    serializationMs?: number;
  };
}
