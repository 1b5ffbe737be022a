/**
 * W3C Trace Context (level 2) headers as both runtimes read and write them:
 * `traceparent` (`00-<trace id>-<parent span id>-<flags>`) carries a trace
 * into a request, `traceresponse` (same shape, naming the server's span)
 * tells the client which trace its request joined. The origin's SDK reads
 * `traceparent` itself; the edge, which has no SDK, reads and starts one here.
 */

export interface TraceContext {
  /** 32 lower-case hex characters, not all zero. */
  traceId: string;
  /** 16 lower-case hex characters, not all zero. */
  spanId: string;
  sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The context a `traceparent` header names, or null when it names none: a
 * malformed value, version `ff`, all-zero ids, or fields after version 00's
 * four. A later version's extra fields are ignored, as the specification asks.
 */
export function parseTraceparent(header: string | null | undefined): TraceContext | null {
  const match = header ? TRACEPARENT.exec(header.trim()) : null;
  if (!match) return null;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return null;
  if (/^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return null;
  return { traceId: traceId!, spanId: spanId!, sampled: (parseInt(flags!, 16) & 1) === 1 };
}

/** The header value naming `context` (`traceparent` going on, `traceresponse` coming back). */
export function formatTraceparent(context: TraceContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.sampled ? '01' : '00'}`;
}

/** Random hex of `bytes` bytes, never all zero (Web Crypto: both runtimes have it). */
export function randomHexId(bytes: 8 | 16): string {
  const buffer = new Uint8Array(bytes);
  do crypto.getRandomValues(buffer);
  while (buffer.every((byte) => byte === 0));
  let hex = '';
  for (const byte of buffer) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/**
 * Whether a new trace is sampled under a trace-id ratio, decided from the id
 * as the OpenTelemetry JavaScript SDK's `traceidratio` sampler decides it
 * (its four 32-bit words XORed, against the ratio of 2^32 - 1), so the edge
 * and the origin decide alike.
 */
export function sampledByRatio(traceId: string, ratio: number): boolean {
  if (ratio >= 1) return true;
  if (ratio <= 0) return false;
  let accumulation = 0;
  for (let position = 0; position < 32; position += 8) accumulation = (accumulation ^ parseInt(traceId.slice(position, position + 8), 16)) >>> 0;
  return accumulation < Math.floor(ratio * 0xffffffff);
}

/**
 * Where spans go, by the OpenTelemetry specification's rule: the traces
 * endpoint as written, else `/v1/traces` under the base endpoint; null
 * when neither is set.
 */
export function otlpTracesUrl(tracesEndpoint: string | undefined, baseEndpoint: string | undefined): string | null {
  if (tracesEndpoint) return tracesEndpoint;
  return baseEndpoint ? `${baseEndpoint}${baseEndpoint.endsWith('/') ? '' : '/'}v1/traces` : null;
}

/**
 * The pairs of an OTLP `name=value,...` list (exporter headers, resource
 * attributes): each name trimmed, its value URL-decoded, or null when it is
 * not URL-encoded text (`raw` is the value as written); a pair without a
 * name is left out.
 */
export function otlpPairs(text: string | undefined): { name: string; value: string | null; raw: string }[] {
  const pairs: { name: string; value: string | null; raw: string }[] = [];
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at < 1) continue;
    const raw = pair.slice(at + 1).trim();
    let value: string | null;
    try {
      value = decodeURIComponent(raw);
    } catch {
      value = null;
    }
    pairs.push({ name: pair.slice(0, at).trim(), value, raw });
  }
  return pairs;
}
