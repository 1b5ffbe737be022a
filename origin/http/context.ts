import type { Env as HonoEnv } from 'hono';
import type { Logger } from 'pino';
import type { ResponseCache } from '../cache/response-cache.ts';
import type { DriverRegistry } from '../drivers/registry.ts';
import type { Env } from '../env.ts';
import type { ConnectionUsage } from '../services/connections/usage.ts';
import type { HistoryRecorder } from '../services/history/recorder.ts';
import type { Store } from '../store/open.ts';

/** Who is calling. Scoped keys and administrator tokens arrive with the access-control work. */
export interface Caller {
  /** `admin` for the server key, the key's own name, or `-` when no key is configured. */
  name: string;
  admin: boolean;
  via: 'key' | 'open';
}

/** Everything a route or service needs, built once in `main.ts` and passed in. */
export interface AppDeps {
  env: Env;
  store: Store;
  drivers: DriverRegistry;
  usage: ConnectionUsage;
  /** Run history: queued in memory, written in batches off the request path. */
  history: HistoryRecorder;
  /** Saved-query responses with a `cache_ttl`: process memory, or Redis shared by every origin. */
  cache: ResponseCache;
  logger: Logger;
  version: string;
}

export interface AppEnv extends HonoEnv {
  Variables: {
    deps: AppDeps;
    requestId: string;
    caller: Caller;
  };
}
