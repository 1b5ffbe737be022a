import type { DurableObjectNamespace } from 'cloudflare:workers';
import type { ReplicaObject } from './replica/object.ts';
import type { RateLimiterObject } from './rate-limit/object.ts';

/** The Worker's bindings (wrangler.toml). */
export interface EdgeBindings {
  /** The origin every request the edge does not answer goes to. */
  SLUICE_ORIGIN_URL: string;
  /** Shared with the origin (`wrangler secret put SLUICE_EDGE_SECRET`). */
  SLUICE_EDGE_SECRET: string;
  /** Tracing (docs/reference/tracing.md): set, the edge exports its own span there as OTLP/HTTP JSON. */
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  /** `name=value,...` sent with each export (`wrangler secret put`: often a credential). */
  OTEL_EXPORTER_OTLP_HEADERS?: string;
  OTEL_EXPORTER_OTLP_TRACES_HEADERS?: string;
  OTEL_TRACES_SAMPLER?: string;
  OTEL_TRACES_SAMPLER_ARG?: string;
  OTEL_SERVICE_NAME?: string;
  OTEL_SDK_DISABLED?: string;
  REPLICA: DurableObjectNamespace<ReplicaObject>;
  RATE_LIMITER: DurableObjectNamespace<RateLimiterObject>;
}
