import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG, pgExec } from '../api/connections-fixtures.ts';
import { eventually } from '../harness/eventually.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type ReceivedSpan, type Receiver, startReceiver } from '../harness/otlp-receiver.ts';
import { recordSecret } from '../harness/run-record.ts';
import { unique } from '../harness/unique.ts';

/**
 * Tracing end to end (docs/reference/tracing.md): an origin behind the edge
 * exporting to an OTLP/HTTP receiver on loopback, every span checked as it
 * crossed the wire. A request with the client's `traceparent` continues its
 * trace, whose tree, ids and attributes are the ones documented; the same
 * trace id is in `traceresponse`, the JSON log lines and run history; no
 * span carries a key, a password or a parameter value.
 */

const ADMIN_KEY = 'traces-admin-key-0123456789abcdef';
const PASSWORD = 'traces-pg-password-5f1d0c9a';
/** A parameter value no attribute may carry. */
const SECRET_VALUE = 'needle-7d41c9e2b3';
const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

let receiver: Receiver;
let origin: Origin;
let keySecret: string;
const table = unique('traced_films');
const connection = unique('pg_traced');
const query = unique('film_by_title');

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

beforeAll(async () => {
  recordSecret('traces admin key', ADMIN_KEY);
  recordSecret('traces connection password', PASSWORD);
  recordSecret('traces parameter value', SECRET_VALUE);
  receiver = await startReceiver();
  await pgExec(`create table ${table} (id int primary key, title text)`, `insert into ${table} select i, 'film ' || i from generate_series(1, 50) i`);
  origin = await startOrigin({
    edge: true,
    edgeBindings: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_JSON_LOGS: '1', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' },
  });
  const admin = { 'x-api-key': ADMIN_KEY };
  const made = await origin.call('POST', '/api/v1/connections', { name: connection, db: 'postgres', ...PG, password: PASSWORD }, admin);
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const saved = await origin.call(
    'POST',
    '/api/v1/queries',
    { name: query, connection_name: connection, sql: `SELECT id, title FROM ${table} WHERE title <> :title ORDER BY id LIMIT 3`, parameters: { title: 'string' }, cache_ttl: 60, publish: true },
    admin,
  );
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  const key = await origin.call('POST', '/api/v1/api-keys', { name: unique('traced-key'), connections: [connection] }, admin);
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  keySecret = key.body.secret;
  recordSecret('traces scoped key', keySecret);
}, 120_000);

afterAll(async () => {
  await origin?.stop();
  await receiver?.stop();
  await pgExec(`drop table if exists ${table}`);
});

/** A span's children in `spans`. */
const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) => spans.filter((span) => span.parentSpanId === parent.spanId);
/** The request's server span the origin exported. */
const originServer = (spans: ReceivedSpan[]) => spans.filter((span) => span.kind === SERVER && span.resource['service.name'] === 'sluice');
/** The span the edge exported itself. */
const edgeServer = (spans: ReceivedSpan[]) => spans.filter((span) => span.resource['service.name'] === 'sluice-edge');
/** Both servers' spans are in. */
const bothServers = (found: ReceivedSpan[]) => originServer(found).length === 1 && edgeServer(found).length === 1;

describe('one GET /q/<name> through the edge, with the client\'s traceparent', () => {
  let spans: ReceivedSpan[];
  let response: Response;

  beforeAll(async () => {
    await eventually(async () => (await origin.fetch('/health')).ok);
    response = await origin.fetch(`/q/${query}?title=${SECRET_VALUE}`, { headers: { 'x-api-key': keySecret, traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` } });
    expect(response.status, await response.clone().text()).toBe(200);
    spans = await receiver.trace(CLIENT_TRACE, (found) => found.some((span) => span.name === 'sluice.serialize') && bothServers(found));
  });

  it('continues the client\'s trace: the edge\'s span is under the client\'s, the origin\'s request span under the edge\'s, named by its route', () => {
    const [edge] = edgeServer(spans);
    expect(edge!.parentSpanId).toBe(CLIENT_SPAN);
    expect(edge!.kind).toBe(SERVER);
    expect(edge!.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200, 'sluice.edge.answered_by': 'origin' });
    const server = originServer(spans);
    expect(server).toHaveLength(1);
    expect(server[0]!.parentSpanId).toBe(edge!.spanId);
    expect(server[0]!.name).toBe('GET /q/:name');
    expect(server[0]!.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.route': '/q/:name', 'http.response.status_code': 200, 'url.scheme': 'http' });
    expect(server[0]!.attributes['sluice.key']).toMatch(/^traced-key/);
    expect(server[0]!.attributes['sluice.request_id']).toBe(response.headers.get('x-request-id'));
    expect(server[0]!.resource).toMatchObject({ 'service.name': 'sluice' });
  });

  it('has authentication, cache, pool wait, the query and serialisation under the request', () => {
    const [server] = originServer(spans);
    const names = childrenOf(spans, server!).map((span) => span.name);
    for (const name of ['sluice.authenticate', 'sluice.admission', 'sluice.cache', 'sluice.pool.wait', 'sluice.serialize']) expect(names).toContain(name);
    const cache = spans.find((span) => span.name === 'sluice.cache')!;
    expect(cache.attributes['sluice.cache.result']).toBe('miss');
    const serialize = spans.find((span) => span.name === 'sluice.serialize')!;
    expect(serialize.attributes).toMatchObject({ 'sluice.format': 'json' });
    expect(Number(serialize.attributes['sluice.bytes'])).toBeGreaterThan(0);
  });

  it('has the query as a client span with the database conventions and the rows returned', () => {
    const [server] = originServer(spans);
    const [statement] = childrenOf(spans, server!).filter((span) => span.kind === CLIENT);
    expect(statement!.name).toBe(`SELECT ${table}`);
    expect(statement!.attributes).toMatchObject({
      'db.system.name': 'postgresql',
      'db.namespace': 'test',
      'db.operation.name': 'SELECT',
      'db.query.summary': `SELECT ${table}`,
      'server.address': '127.0.0.1',
      'server.port': 5432,
      'sluice.query.name': query,
      'sluice.query.version': 1,
      'db.response.returned_rows': 3,
    });
    // The text only with SLUICE_OTEL_SQL_TEXT=1.
    expect(statement!.attributes['db.query.text']).toBeUndefined();
  });

  it('names the same trace in traceresponse, the JSON log lines and run history', async () => {
    const [server] = originServer(spans);
    expect(response.headers.get('traceresponse')).toBe(`00-${CLIENT_TRACE}-${server!.spanId}-01`);
    const requestId = response.headers.get('x-request-id')!;
    const lines = await eventually(() => {
      const found = origin.logs.filter((line) => line.includes(`"request_id":"${requestId}"`)).map((line) => JSON.parse(line));
      return found.some((line) => line.logger === 'sluice.access') && found;
    });
    for (const line of lines) expect(line).toMatchObject({ trace_id: CLIENT_TRACE, span_id: server!.spanId });
    const history = await origin.call('GET', `/api/v1/queries/${query}/history`, undefined, { 'x-api-key': ADMIN_KEY });
    expect(history.status).toBe(200);
    expect(history.body.items.find((item: { request_id: string }) => item.request_id === requestId)).toMatchObject({ trace_id: CLIENT_TRACE });
  });
});

describe('metrics with exemplars', () => {
  it('an OpenMetrics scrape shows the sampled trace on the duration buckets; the Prometheus text stays as it was', async () => {
    const open = await fetch(`${origin.originUrl}/metrics`, { headers: { accept: 'application/openmetrics-text; version=1.0.0' } });
    expect(open.headers.get('content-type')).toMatch(/^application\/openmetrics-text/);
    const text = await open.text();
    expect(text).toMatch(new RegExp(`^sluice_request_duration_seconds_bucket\\{[^}]*endpoint="/q/:name"[^}]*\\} \\d+ # \\{trace_id="[0-9a-f]{32}"\\} `, 'm'));
    expect(text).toMatch(new RegExp(`^sluice_query_duration_seconds_bucket\\{[^}]*connection="${connection}"[^}]*\\} \\d+ # \\{trace_id="${CLIENT_TRACE}"\\} `, 'm'));
    expect(text).toMatch(/^sluice_requests_total\{/m);
    expect(text.trimEnd().endsWith('# EOF')).toBe(true);
    const prometheus = await (await fetch(`${origin.originUrl}/metrics`)).text();
    expect(prometheus).toMatch(/^sluice_requests_total\{/m);
    expect(prometheus).toMatch(/^# TYPE sluice_requests_total counter$/m);
    expect(prometheus).not.toContain('trace_id');
  });
});

describe('a request without a traceparent', () => {
  it('starts a trace at the edge: the origin\'s span is under the edge\'s root span, and traceresponse names that trace', async () => {
    const res = await origin.fetch(`/q/${query}?title=x`, { headers: { 'x-api-key': keySecret } });
    expect(res.status).toBe(200);
    const [, traceId, spanId, flags] = res.headers.get('traceresponse')!.split('-');
    expect(flags).toBe('01');
    const spans = await receiver.trace(traceId!, bothServers);
    const [edge] = edgeServer(spans);
    const [server] = originServer(spans);
    expect(edge!.parentSpanId).toBe('');
    expect(server!.parentSpanId).toBe(edge!.spanId);
    expect(server!.spanId).toBe(spanId);
  });
});

describe('a client\'s traceparent that asks for no sampling', () => {
  it('records nothing of that trace and still names it in traceresponse, unsampled', async () => {
    const dropped = '6bf92f3577b34da6a3ce929d0e0e4738';
    const kept = '7bf92f3577b34da6a3ce929d0e0e4739';
    const run = (trace: string, flags: string) =>
      origin.fetch('/execute_sql', {
        method: 'POST',
        headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', traceparent: `00-${trace}-${CLIENT_SPAN}-${flags}` },
        body: JSON.stringify({ connection_name: connection, sql: `SELECT id FROM ${table} WHERE id = 1` }),
      });
    const res = await run(dropped, '00');
    expect(res.status).toBe(200);
    const [, traceId, , flags] = res.headers.get('traceresponse')!.split('-');
    expect([traceId, flags]).toEqual([dropped, '00']);
    // Spans leave in the order they end: once a later sampled request's query span is in, any of the first would be too.
    expect((await run(kept, '01')).status).toBe(200);
    await receiver.trace(kept, (found) => found.some((span) => span.kind === CLIENT));
    expect(receiver.spans.filter((span) => span.traceId === dropped)).toEqual([]);
  });
});

describe('failures', () => {
  it('marks a failed query\'s spans as errors with the code in error.type', async () => {
    const trace = '5bf92f3577b34da6a3ce929d0e0e4737';
    const res = await origin.fetch('/execute_sql', {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', traceparent: `00-${trace}-${CLIENT_SPAN}-01` },
      body: JSON.stringify({ connection_name: connection, sql: `SELECT id / 0 FROM ${table}` }),
    });
    const body = await res.json();
    expect(res.status).toBeGreaterThanOrEqual(400);
    const spans = await receiver.trace(trace, (found) => found.some((span) => span.kind === CLIENT) && bothServers(found));
    const statement = spans.find((span) => span.kind === CLIENT)!;
    expect(statement.statusCode).toBe(ERROR);
    expect(statement.attributes['error.type']).toBe(body.code ?? 'query_failed');
    const [server] = originServer(spans);
    expect(server.attributes['error.type']).toBe(statement.attributes['error.type']);
  });
});

describe('what the spans may carry', () => {
  it('no key, password, header token or parameter value in any attribute of any span received', () => {
    expect(receiver.spans.length).toBeGreaterThan(5);
    const text = JSON.stringify(receiver.spans, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
    for (const secret of [ADMIN_KEY, PASSWORD, SECRET_VALUE, keySecret]) expect(text).not.toContain(secret);
  });
});
