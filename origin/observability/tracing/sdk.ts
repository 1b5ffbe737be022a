import { type Context, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Span, type TextMapGetter, type Tracer, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { otlpPairs } from '../../../shared/tracing/trace-context.ts';
import type { SpanAttributes, SpanKind as Kind, TraceSpan } from './span.ts';
import { type Tracing, type TracingEnv, tracesUrl } from './tracing.ts';

/** Imported by tracing.ts only when tracing is on: the SDK, one exporter and a batch processor. */

const KINDS: Record<Kind, SpanKind> = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT, server: SpanKind.SERVER };

const propagator = new W3CTraceContextPropagator();
const headerGetter: TextMapGetter<(name: string) => string | undefined> = {
  keys: () => [],
  get: (header, name) => header(name),
};

export async function sdkTracing(env: TracingEnv, version: string): Promise<Tracing> {
  const exporter = await openExporter(env);
  const resource = resourceAttributes(env.OTEL_RESOURCE_ATTRIBUTES);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.version': version, ...resource, 'service.name': env.OTEL_SERVICE_NAME ?? resource['service.name'] ?? 'sluice' }),
    sampler: sampler(env),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: env.OTEL_BSP_SCHEDULE_DELAY })],
  });
  const tracer = provider.getTracer('sluice', version);
  return {
    on: true,
    startRequest(header, attributes) {
      const parent = propagator.extract(ROOT_CONTEXT, header, headerGetter);
      return new SdkSpan(tracer.startSpan(String(attributes['http.request.method'] ?? 'request'), { kind: SpanKind.SERVER, attributes: defined(attributes) }, parent), tracer);
    },
    startRoot(name, attributes = {}) {
      return new SdkSpan(tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes: defined(attributes), root: true }, ROOT_CONTEXT), tracer);
    },
    close: () => provider.shutdown(),
  };
}

class SdkSpan implements TraceSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly sampled: boolean;
  /** The context its children start in, made once: a request's span has half a dozen. */
  #asParent: Context | undefined;

  constructor(
    private readonly span: Span,
    private readonly tracer: Tracer,
  ) {
    const context = span.spanContext();
    this.traceId = context.traceId;
    this.spanId = context.spanId;
    this.sampled = (context.traceFlags & 1) === 1;
  }

  child(name: string, attributes: SpanAttributes = {}, kind: Kind = 'internal'): TraceSpan {
    // Every sampler the variables name keeps or drops a whole trace (the ratio reads the trace id, the others follow the parent),
    // so a child of a dropped span is dropped too: it needs no SDK span, and this one's every call already does nothing.
    if (!this.sampled) return this;
    this.#asParent ??= trace.setSpan(ROOT_CONTEXT, this.span);
    return new SdkSpan(this.tracer.startSpan(name, { kind: KINDS[kind], attributes: defined(attributes) }, this.#asParent), this.tracer);
  }

  set(attributes: SpanAttributes): void {
    this.span.setAttributes(defined(attributes));
  }

  rename(name: string): void {
    this.span.updateName(name);
  }

  fail(code: string): void {
    this.span.setAttribute('error.type', code);
    this.span.setStatus({ code: SpanStatusCode.ERROR });
  }

  end(): void {
    this.span.end();
  }
}

/** The attributes without the undefined ones (the SDK would warn of each), copied only when there are some. */
function defined(attributes: SpanAttributes): Record<string, string | number | boolean> {
  let complete = true;
  for (const name in attributes) if (attributes[name] === undefined) complete = false;
  if (complete) return attributes as Record<string, string | number | boolean>;
  const kept: Record<string, string | number | boolean> = {};
  for (const name in attributes) if (attributes[name] !== undefined) kept[name] = attributes[name];
  return kept;
}

async function openExporter(env: TracingEnv): Promise<SpanExporter> {
  const config = { url: tracesUrl(env), headers: { ...env.OTEL_EXPORTER_OTLP_HEADERS, ...env.OTEL_EXPORTER_OTLP_TRACES_HEADERS } };
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(config);
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(config);
}

/** The sampler the variables name (the specification's names; `parentbased_always_on` unless set). */
function sampler(env: TracingEnv): Sampler {
  const ratio = new TraceIdRatioBasedSampler(env.OTEL_TRACES_SAMPLER_ARG ?? 1);
  switch (env.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** `OTEL_RESOURCE_ATTRIBUTES`: `key=value` pairs separated by commas, values URL-encoded. */
function resourceAttributes(text: string | undefined): Record<string, string> {
  return Object.fromEntries(otlpPairs(text).map(({ name, value, raw }) => [name, value ?? raw]));
}
