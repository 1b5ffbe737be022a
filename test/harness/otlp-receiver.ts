import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { recordLog } from './run-record.ts';
import { eventually } from './eventually.ts';

/**
 * An OTLP/HTTP trace receiver on loopback, as a Collector's 4318 port
 * answers: `POST /v1/traces` in protobuf (`application/x-protobuf`) or JSON
 * (`application/json`). Protobuf is decoded with the OpenTelemetry
 * protocol's own message definitions (the generated decoders of
 * `@opentelemetry/otlp-transformer` 0.57, installed in test/ by
 * scripts/services.sh); JSON as the protocol's JSON mapping writes it.
 * Every span received is written to the run's record, so the whole-run
 * secret scan reads what crossed the wire too.
 */

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client. */
  kind: number;
  /** OTLP's numbers: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  attributes: Record<string, string | number | boolean>;
  resource: Record<string, string | number | boolean>;
  startNs: bigint;
  endNs: bigint;
}

export interface Receiver {
  url: string;
  spans: ReceivedSpan[];
  /** The content types and headers of the exports received. */
  requests: { contentType: string; headers: IncomingMessage['headers'] }[];
  /** The spans of one trace once `done` says they have all arrived. */
  trace(traceId: string, done: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  stop(): Promise<void>;
}

const SPAN_KIND_NUMBERS: Record<string, number> = { SPAN_KIND_INTERNAL: 1, SPAN_KIND_SERVER: 2, SPAN_KIND_CLIENT: 3, SPAN_KIND_PRODUCER: 4, SPAN_KIND_CONSUMER: 5 };

interface ProtoRoot {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: { decode(bytes: Uint8Array): unknown; toObject(message: unknown, options: object): unknown } } } } } };
}

function decoder(): ProtoRoot['opentelemetry']['proto']['collector']['trace']['v1']['ExportTraceServiceRequest'] {
  const require = createRequire(new URL('../node_modules/', import.meta.url));
  const root = require('otlp-proto-definitions/build/src/generated/root.js') as ProtoRoot;
  return root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
}

/** An OTLP AnyValue as a plain value (protobuf's toObject and the JSON mapping write it alike). */
function plain(value: Record<string, unknown> | undefined): string | number | boolean {
  if (!value) return '';
  if ('stringValue' in value) return String(value.stringValue);
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('boolValue' in value) return Boolean(value.boolValue);
  return JSON.stringify(value);
}

function attributesOf(list: { key: string; value: Record<string, unknown> }[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));
}

/** The protocol's JSON mapping writes ids as hex; protobuf's toObject (bytes as base64 here) is turned to hex too. */
const hexId = (id: unknown, fromBase64: boolean) => (typeof id !== 'string' || id === '' ? '' : fromBase64 ? Buffer.from(id, 'base64').toString('hex') : id.toLowerCase());

function spansOf(request: any, fromBase64: boolean): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: hexId(span.traceId, fromBase64),
          spanId: hexId(span.spanId, fromBase64),
          parentSpanId: hexId(span.parentSpanId, fromBase64),
          name: span.name,
          kind: typeof span.kind === 'number' ? span.kind : (SPAN_KIND_NUMBERS[span.kind] ?? 0),
          statusCode: typeof span.status?.code === 'number' ? span.status.code : span.status?.code === 'STATUS_CODE_ERROR' ? 2 : span.status?.code === 'STATUS_CODE_OK' ? 1 : 0,
          attributes: attributesOf(span.attributes),
          resource,
          startNs: BigInt(span.startTimeUnixNano ?? 0),
          endNs: BigInt(span.endTimeUnixNano ?? 0),
        });
      }
    }
  }
  return spans;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startReceiver(): Promise<Receiver> {
  const decode = decoder();
  const log = recordLog('otlp-receiver');
  const spans: ReceivedSpan[] = [];
  const requests: Receiver['requests'] = [];
  const server: Server = createServer(async (req, res) => {
    const body = await bodyOf(req);
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    const contentType = String(req.headers['content-type'] ?? '');
    requests.push({ contentType, headers: req.headers });
    try {
      const received = contentType.startsWith('application/x-protobuf')
        ? spansOf(decode.toObject(decode.decode(body), { longs: String, enums: Number, bytes: String, defaults: false }), true)
        : spansOf(JSON.parse(body.toString('utf8')), false);
      for (const span of received) log.line(JSON.stringify(span, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value)));
      spans.push(...received);
      res.writeHead(200, { 'content-type': contentType.startsWith('application/json') ? 'application/json' : 'application/x-protobuf' }).end(contentType.startsWith('application/json') ? '{}' : '');
    } catch (err) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    async trace(traceId, done, timeoutMs = 15_000) {
      return eventually(() => {
        const found = spans.filter((span) => span.traceId === traceId);
        if (!done(found)) throw new Error(`trace ${traceId}: ${found.length} spans so far (${found.map((span) => span.name).join(', ')})`);
        return found;
      }, { timeoutMs });
    },
    async stop() {
      log.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
