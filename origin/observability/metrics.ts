import { Counter, Gauge, Histogram, Registry, type RegistryContentType } from 'prom-client';

/**
 * The `/metrics` series (spec, Observability), per process and in memory.
 * Only these: no default Node process series, so the exposition is exactly
 * the documented set (docs/reference/observability.md). Labels are bounded:
 * `endpoint` is a route template, `key` a caller name, `connection` a
 * connection name.
 */
// Made OpenMetrics, as prom-client asks of a registry whose histograms keep exemplars, and switched to Prometheus text
// once they are made (below): the format scrapers get unless they ask for OpenMetrics (renderMetrics).
const registry = new Registry<RegistryContentType>();
registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const SERIALIZATION_BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

const requestsTotal = new Counter({
  name: 'sluice_requests_total',
  help: 'HTTP requests answered, by method, route template, status and caller.',
  labelNames: ['method', 'endpoint', 'status', 'key'] as const,
  registers: [registry],
});

const requestDuration = new Histogram({
  name: 'sluice_request_duration_seconds',
  help: 'Time to answer a request (a streamed body: until its headers), by method and route template.',
  labelNames: ['method', 'endpoint'] as const,
  buckets: DURATION_BUCKETS,
  // A bucket's last sampled trace, shown to an OpenMetrics scrape (renderMetrics).
  enableExemplars: true,
  registers: [registry],
});

const queriesTotal = new Counter({
  name: 'sluice_queries_total',
  help: 'Statements run, by connection, dialect, status (success or error) and caller.',
  labelNames: ['connection', 'dialect', 'status', 'key'] as const,
  registers: [registry],
});

const dryRunsTotal = new Counter({
  name: 'sluice_dry_runs_total',
  help: 'Dry runs answered (checked and estimated, never executed), by connection, dialect and caller.',
  labelNames: ['connection', 'dialect', 'key'] as const,
  registers: [registry],
});

const queryDuration = new Histogram({
  name: 'sluice_query_duration_seconds',
  help: 'Time a statement ran (a stream: until its last row was read), by connection and dialect.',
  labelNames: ['connection', 'dialect'] as const,
  buckets: DURATION_BUCKETS,
  enableExemplars: true,
  registers: [registry],
});

const rowsReturned = new Counter({
  name: 'sluice_rows_returned_total',
  help: 'Rows handed to clients, by connection, dialect and caller.',
  labelNames: ['connection', 'dialect', 'key'] as const,
  registers: [registry],
});

const activeQueries = new Gauge({
  name: 'sluice_active_queries',
  help: 'Statements running now (a stream counts until its download ends).',
  registers: [registry],
});

const serializationDuration = new Histogram({
  name: 'sluice_serialization_duration_seconds',
  help: 'Time to serialise one page of rows, by format (paged responses only).',
  labelNames: ['format'] as const,
  buckets: SERIALIZATION_BUCKETS,
  registers: [registry],
});

const poolIdle = new Gauge({
  name: 'sluice_pool_idle_connections',
  help: 'Database sessions waiting idle in the pools of every connection.',
  registers: [registry],
});

const streamPipes = new Gauge({
  name: 'sluice_stream_pipes',
  help: 'DuckDB streams written by DuckDB into a pipe of their own now; at the limit (half the libuv pool) further ones fetch their lines.',
  registers: [registry],
});

const rateLimitRejections = new Counter({
  name: 'sluice_rate_limit_rejections_total',
  help: 'Requests refused with 429: a rate limit (server-wide or per key), a quota or a concurrency limit.',
  registers: [registry],
});

const streamExports = new Counter({
  name: 'sluice_stream_exports_total',
  help: 'stream=true downloads that finished, by status: success (whole result) or truncated (cut at SLUICE_STREAM_MAX_ROWS).',
  labelNames: ['status'] as const,
  registers: [registry],
});
// Both outcomes are listed from the start, so a rate over them never starts from a missing series.
for (const status of ['success', 'truncated']) streamExports.inc({ status }, 0);
registry.setContentType(Registry.PROMETHEUS_CONTENT_TYPE);

export interface RequestSample {
  method: string;
  endpoint: string;
  status: number;
  key: string;
  seconds: number;
  /** The request's sampled trace: the duration's exemplar. */
  traceId?: string;
}

/** One answered request; a 429 is also a rate-limit rejection (only the limits answer 429: server-wide, per key, quota, concurrency). */
export function countRequest(sample: RequestSample): void {
  requestsTotal.inc({ method: sample.method, endpoint: sample.endpoint, status: String(sample.status), key: sample.key });
  requestDuration.observe({ labels: { method: sample.method, endpoint: sample.endpoint }, value: sample.seconds, exemplarLabels: exemplar(sample.traceId) });
  if (sample.status === 429) rateLimitRejections.inc();
}

export function queryStarted(): void {
  activeQueries.inc();
}

export interface QuerySample {
  connection: string;
  dialect: string;
  status: 'success' | 'error';
  key: string;
  seconds: number;
  rows: number;
  /** The statement's sampled trace: the duration's exemplar. */
  traceId?: string;
}

export function queryFinished(sample: QuerySample): void {
  activeQueries.dec();
  const where = { connection: sample.connection, dialect: sample.dialect };
  queriesTotal.inc({ ...where, status: sample.status, key: sample.key });
  queryDuration.observe({ labels: where, value: sample.seconds, exemplarLabels: exemplar(sample.traceId) });
  // A failed stream may have handed rows over before it broke: they were returned.
  if (sample.rows > 0) rowsReturned.inc({ ...where, key: sample.key }, sample.rows);
}

export function countDryRun(sample: { connection: string; dialect: string; key: string }): void {
  dryRunsTotal.inc(sample);
}

export function observeSerialization(format: string, seconds: number): void {
  serializationDuration.observe({ format }, seconds);
}

export function countPushdownStream(status: 'success' | 'truncated'): void {
  streamExports.inc({ status });
}

/** What the gauges read at scrape time show. */
export interface ScrapeReadings {
  idleConnections: number;
  streamPipes: number;
}

/** The exemplar of an observation: its sampled trace, or none. */
const exemplar = (traceId: string | undefined): Record<string, string> => (traceId ? { trace_id: traceId } : {});

/** One exposition at a time: an OpenMetrics one switches the registry's format and renames its counters while it renders. */
let rendering: Promise<unknown> = Promise.resolve();

/**
 * The exposition, with the scrape-time gauges read now: Prometheus text, or
 * OpenMetrics (whose histogram buckets carry their trace exemplars) when the
 * scraper asks for it. prom-client renders OpenMetrics by switching the
 * registry and stripping `_total` from counters' names, so the names are
 * put back after, and expositions never overlap.
 */
export function renderMetrics(readings: ScrapeReadings, { openMetrics = false } = {}): Promise<{ contentType: string; body: string }> {
  const render = async () => {
    poolIdle.set(readings.idleConnections);
    streamPipes.set(readings.streamPipes);
    if (!openMetrics) return { contentType: registry.contentType, body: await registry.metrics() };
    const counters = registry.getMetricsAsArray().filter((metric) => metric instanceof Counter) as unknown as { name: string }[];
    const names = counters.map((counter) => counter.name);
    registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    try {
      return { contentType: registry.contentType, body: await registry.metrics() };
    } finally {
      registry.setContentType(Registry.PROMETHEUS_CONTENT_TYPE);
      counters.forEach((counter, i) => (counter.name = names[i]!));
    }
  };
  const next = rendering.then(render, render);
  rendering = next.catch(() => {});
  return next;
}
