import { otlpTracesUrl } from '../../../shared/tracing/trace-context.ts';
import type { Env } from '../../env.ts';
import { NO_SPAN, type SpanAttributes, type TraceSpan } from './span.ts';

/**
 * The origin's tracing: OpenTelemetry when the standard variables turn it
 * on (docs/reference/tracing.md), else nothing at all. The SDK and its
 * exporter are imported only then, so an origin without tracing neither
 * loads nor pays for them.
 */
export interface Tracing {
  readonly on: boolean;
  /** A request's server span: continuing the trace its `traceparent` names, else starting one. */
  startRequest(header: (name: string) => string | undefined, attributes: SpanAttributes): TraceSpan;
  /** A span that starts a trace of its own: work no request asked for (a scheduled export run, the startup configuration file). */
  startRoot(name: string, attributes?: SpanAttributes): TraceSpan;
  /** Sends the spans still buffered, then stops. */
  close(): Promise<void>;
}

export const TRACING_OFF: Tracing = Object.freeze({
  on: false,
  startRequest: () => NO_SPAN,
  startRoot: () => NO_SPAN,
  close: async () => {},
});

export type TracingEnv = Pick<
  Env,
  | 'OTEL_EXPORTER_OTLP_ENDPOINT'
  | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
  | 'OTEL_EXPORTER_OTLP_PROTOCOL'
  | 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
  | 'OTEL_EXPORTER_OTLP_HEADERS'
  | 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'
  | 'OTEL_SDK_DISABLED'
  | 'OTEL_SERVICE_NAME'
  | 'OTEL_RESOURCE_ATTRIBUTES'
  | 'OTEL_TRACES_SAMPLER'
  | 'OTEL_TRACES_SAMPLER_ARG'
  | 'OTEL_BSP_SCHEDULE_DELAY'
>;

/** On when an OTLP endpoint is set and the SDK is not disabled. */
export function tracingOn(env: TracingEnv): boolean {
  return !env.OTEL_SDK_DISABLED && (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT) !== undefined;
}

/** Where spans go: the traces endpoint as written, else `/v1/traces` under the base endpoint (the specification's rule). */
export function tracesUrl(env: TracingEnv): string {
  return otlpTracesUrl(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, env.OTEL_EXPORTER_OTLP_ENDPOINT)!;
}

export async function openTracing(env: TracingEnv, version: string): Promise<Tracing> {
  if (!tracingOn(env)) return TRACING_OFF;
  const { sdkTracing } = await import('./sdk.ts');
  return sdkTracing(env, version);
}
