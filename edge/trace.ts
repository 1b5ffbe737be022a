import { createMiddleware } from 'hono/factory';
import { type TraceContext, formatTraceparent, otlpPairs, otlpTracesUrl, parseTraceparent, randomHexId, sampledByRatio } from '../shared/tracing/trace-context.ts';
import type { EdgeBindings } from './env.ts';
import type { EdgeEnv } from './gate.ts';

/**
 * The edge's part of a trace (docs/reference/tracing.md). With an OTLP
 * endpoint among its variables, the Worker continues the client's
 * `traceparent` (or starts a trace, sampled by the origin's rule), sends
 * the origin a `traceparent` naming its own span, so the origin's request
 * span sits under it, and exports that span itself, as OTLP/HTTP JSON after
 * the answer (a Worker has no SDK; JSON needs none). Without an endpoint it
 * only passes the client's headers on, as any proxy would.
 */
export const traceEdge = createMiddleware<EdgeEnv>(async (c, next) => {
  const url = tracesUrl(c.env);
  if (!url) return next();
  const parent = parseTraceparent(c.req.header('traceparent'));
  const traceId = parent?.traceId ?? randomHexId(16);
  const context: TraceContext = { traceId, spanId: randomHexId(8), sampled: parent ? parent.sampled : sampledNew(c.env, traceId) };
  c.set('trace', context);
  const started = Date.now();
  await next();
  const forwarded = c.get('originMs') !== undefined;
  // The origin's `traceresponse` names its own span; an answer the edge gave itself names the edge's.
  if (!forwarded) c.res.headers.set('traceresponse', formatTraceparent(context));
  if (!context.sampled) return;
  const span = edgeSpan(c.env, context, parent?.spanId ?? '', {
    name: `${c.req.method} edge`,
    start: started,
    end: Date.now(),
    attributes: {
      'http.request.method': c.req.method,
      'http.response.status_code': c.res.status,
      'url.scheme': new URL(c.req.url).protocol.replace(':', ''),
      'sluice.request_id': c.res.headers.get('x-request-id') ?? '',
      'sluice.edge.answered_by': forwarded ? 'origin' : 'edge',
    },
  });
  c.executionCtx.waitUntil(
    fetch(url, { method: 'POST', headers: { ...otlpHeaders(c.env), 'content-type': 'application/json' }, body: JSON.stringify(span) }).then(
      (res) => res.body?.cancel(),
      () => {},
    ),
  );
});

function tracesUrl(env: EdgeBindings): string | null {
  return env.OTEL_SDK_DISABLED === 'true' ? null : otlpTracesUrl(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** A new trace's sampling under the origin's variables (parent-based: a client's flag decided it otherwise). */
function sampledNew(env: EdgeBindings, traceId: string): boolean {
  const sampler = env.OTEL_TRACES_SAMPLER || 'parentbased_always_on';
  if (sampler.endsWith('always_off')) return false;
  if (sampler.endsWith('traceidratio')) return sampledByRatio(traceId, Number(env.OTEL_TRACES_SAMPLER_ARG ?? 1));
  return true;
}

/** `name=value,...` with URL-encoded values; a malformed pair is left out. */
function otlpHeaders(env: EdgeBindings): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const text of [env.OTEL_EXPORTER_OTLP_HEADERS, env.OTEL_EXPORTER_OTLP_TRACES_HEADERS]) {
    // A value that is not URL-encoded is left out, as the origin refuses it at startup.
    for (const { name, value } of otlpPairs(text)) if (value !== null) headers[name.toLowerCase()] = value;
  }
  return headers;
}

/** One span as an OTLP/HTTP JSON export request (the protocol's JSON mapping: hex ids, nanoseconds as strings). */
function edgeSpan(
  env: EdgeBindings,
  context: TraceContext,
  parentSpanId: string,
  span: { name: string; start: number; end: number; attributes: Record<string, string | number> },
) {
  const value = (item: string | number) => (typeof item === 'number' ? { intValue: String(item) } : { stringValue: item });
  const attributes = (record: Record<string, string | number>) => Object.entries(record).map(([key, item]) => ({ key, value: value(item) }));
  return {
    resourceSpans: [
      {
        resource: { attributes: attributes({ 'service.name': env.OTEL_SERVICE_NAME || 'sluice-edge', 'cloud.provider': 'cloudflare' }) },
        scopeSpans: [
          {
            scope: { name: 'sluice-edge' },
            spans: [
              {
                traceId: context.traceId,
                spanId: context.spanId,
                ...(parentSpanId ? { parentSpanId } : {}),
                name: span.name,
                kind: 2,
                startTimeUnixNano: `${span.start}000000`,
                endTimeUnixNano: `${span.end}000000`,
                attributes: attributes(span.attributes),
                status: { code: span.attributes['http.response.status_code'] as number >= 500 ? 2 : 0 },
              },
            ],
          },
        ],
      },
    ],
  };
}
