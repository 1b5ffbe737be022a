import type { DurableObjectNamespace } from 'cloudflare:workers';
import type { ReplicaObject } from './replica/object.ts';
import type { RateLimiterObject } from './rate-limit/object.ts';

/** The Worker's bindings (wrangler.toml). */
export interface EdgeBindings {
  /** The origin every request the edge does not answer goes to. */
  SLUICE_ORIGIN_URL: string;
  /** Shared with the origin (`wrangler secret put SLUICE_EDGE_SECRET`). */
  SLUICE_EDGE_SECRET: string;
  REPLICA: DurableObjectNamespace<ReplicaObject>;
  RATE_LIMITER: DurableObjectNamespace<RateLimiterObject>;
}
