import type { Logger } from './observability/logger.ts';
import type { ResponseCache } from './cache/response-cache.ts';
import type { DriverRegistry } from './drivers/registry.ts';
import type { Env } from './env.ts';
import type { CallerUsage } from './access/usage.ts';
import type { RateLimiter } from './access/rate-limit/limiter.ts';
import type { SignInVerifier } from './access/jwt.ts';
import type { ConnectionUsage } from './services/connections/usage.ts';
import type { PrivilegeChecks } from './services/connections/privilege-checks.ts';
import type { HistoryRecorder } from './services/history/recorder.ts';
import type { Store } from './store/open.ts';
import type { StoreAvailability } from './store/availability.ts';
import type { EdgeSync } from './edge-sync/sync.ts';
import type { Tracing } from './observability/tracing/tracing.ts';

/** Everything a route or service needs, built once in `main.ts` and passed in. */
export interface AppDeps {
  env: Env;
  store: Store;
  /** Whether the PostgreSQL store answers: 503 `store_unavailable` while it does not. */
  storeAvailability: StoreAvailability;
  drivers: DriverRegistry;
  usage: ConnectionUsage;
  /** What each saved connection's database user may do, asked once per settings version. */
  privileges: PrivilegeChecks;
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
  /** The ports the origin listens on, once it does (main.ts): where `/mcp` is served, for `GET /api/v1/mcp/status` and the links in tool results. */
  ports?: { main?: number; mcp?: number };
  /** Pushes the directory to the edge Worker (SLUICE_EDGE_URL); absent without an edge. */
  edgeSync?: EdgeSync;
  /** OpenTelemetry when the variables turn it on, else `TRACING_OFF` (docs/reference/tracing.md). */
  tracing: Tracing;
}
