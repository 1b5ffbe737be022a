import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG, pgExec } from '../api/connections-fixtures.ts';
import { connectMcp } from '../mcp/client.ts';
import { eventually } from '../harness/eventually.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type ReceivedSpan, type Receiver, startReceiver } from '../harness/otlp-receiver.ts';
import { recordSecret } from '../harness/run-record.ts';
import { type TestS3, startS3 } from '../harness/s3.ts';
import { unique } from '../harness/unique.ts';

/**
 * The spans of work other than a query's page (docs/reference/tracing.md),
 * sent as OTLP/HTTP JSON this time: an export run to S3 with a span per
 * uploaded part, a stored result's run, an MCP tool call and a
 * configuration apply, each under the request that asked for it; the
 * headers OTEL_EXPORTER_OTLP_HEADERS names reach the receiver. An origin
 * without the variables answers no `traceresponse` and logs no trace ids.
 */

const ADMIN_KEY = 'traces-work-admin-key-0123456789abcdef';
const HEADER_TOKEN = 'otlp-header-token-3c9e71d2a4';
const admin = { 'x-api-key': ADMIN_KEY };

let receiver: Receiver;
let s3: TestS3;
let origin: Origin;
let untraced: Origin;
const connection = unique('pg_work');

beforeAll(async () => {
  recordSecret('traces-work admin key', ADMIN_KEY);
  recordSecret('OTLP header token', HEADER_TOKEN);
  [receiver, s3] = await Promise.all([startReceiver(), startS3()]);
  [origin, untraced] = await Promise.all([
    startOrigin({
      edge: false,
      env: {
        SLUICE_API_KEY: ADMIN_KEY,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${HEADER_TOKEN}`,
        OTEL_SERVICE_NAME: 'sluice-work',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
    }),
    startOrigin({ edge: false, env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_JSON_LOGS: '1' } }),
  ]);
  const made = await origin.call('POST', '/api/v1/connections', { name: connection, db: 'postgres', ...PG }, admin);
  expect(made.status, JSON.stringify(made.body)).toBe(201);
}, 120_000);

afterAll(async () => {
  await Promise.all([origin?.stop(), untraced?.stop()]);
  await Promise.all([receiver?.stop(), s3?.stop()]);
});

/** The trace a response names in its `traceresponse`, once `done` says it has all arrived. */
async function traceOf(res: { headers: Headers }, done: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  const [, traceId] = res.headers.get('traceresponse')!.split('-');
  return receiver.trace(traceId!, done);
}

const named = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);

describe('the exporter', () => {
  it('sends OTLP JSON with the headers OTEL_EXPORTER_OTLP_HEADERS names, under OTEL_SERVICE_NAME', async () => {
    await origin.call('GET', '/api/v1/connections', undefined, admin);
    await eventually(() => receiver.requests.length > 0);
    expect(receiver.requests.every((request) => request.contentType.startsWith('application/json'))).toBe(true);
    expect(receiver.requests[0]!.headers.authorization).toBe(`Bearer ${HEADER_TOKEN}`);
    await eventually(() => receiver.spans.some((span) => span.resource['service.name'] === 'sluice-work'));
  });

  it('lists the tracing variables in GET /api/v1/settings, the headers as a secret', async () => {
    const settings = await origin.call('GET', '/api/v1/settings', undefined, admin);
    const section = settings.body.sections.find((entry: { id: string }) => entry.id === 'tracing');
    const row = (variable: string) => section.rows.find((entry: { variable: string }) => entry.variable === variable);
    expect(row('OTEL_EXPORTER_OTLP_HEADERS')).toMatchObject({ secret: true, value: 'configured', env_value: null });
    expect(row('OTEL_EXPORTER_OTLP_ENDPOINT')).toMatchObject({ secret: false, value: receiver.url, source: 'env' });
    expect(row('OTEL_EXPORTER_OTLP_PROTOCOL')).toMatchObject({ value: 'http/json', source: 'env' });
    expect(row('OTEL_TRACES_SAMPLER')).toMatchObject({ value: 'parentbased_always_on', source: 'default' });
    expect(row('SLUICE_TRACE_URL')).toMatchObject({ value: null, source: 'default' });
  });
});

describe('an export run to S3', () => {
  it('has one upload span per part under the run\'s span, under the request', async () => {
    const table = unique('export_rows');
    await pgExec(`create table ${table} as select g as id, repeat('x', 190) as pad from generate_series(1, 100000) g`);
    try {
      const query = unique('export_q');
      expect((await origin.call('POST', '/api/v1/queries', { name: query, connection_name: connection, sql: `SELECT id, pad FROM ${table} ORDER BY id`, publish: true }, admin)).status).toBe(201);
      const destination = unique('s3dest');
      const dest = await origin.call('POST', '/api/v1/destinations', { name: destination, url: 's3://exports/traced', endpoint: s3.endpoint, region: s3.region, user: s3.accessKeyId, password: s3.secretAccessKey }, admin);
      expect(dest.status, JSON.stringify(dest.body)).toBe(201);
      const name = unique('export');
      expect((await origin.call('POST', '/api/v1/exports', { name, query, format: 'csv', destination, path: '{name}/{run}' }, admin)).status).toBe(201);
      const run = await origin.call('POST', `/api/v1/exports/${name}/runs`, undefined, admin);
      expect(run.status, JSON.stringify(run.body)).toBe(201);
      // 100,000 rows of ~200 bytes: three parts of at most 8 MiB.
      const parts = Math.ceil(run.body.bytes / (8 * 2 ** 20));
      expect(parts).toBeGreaterThanOrEqual(2);
      const spans = await traceOf(run, (found) => named(found, 'sluice.upload.part').length === parts && named(found, 'sluice.export.run').length === 1 && found.some((span) => span.kind === 2));
      const [exportRun] = named(spans, 'sluice.export.run');
      const request = spans.find((span) => span.kind === 2)!;
      expect(exportRun!.parentSpanId).toBe(request.spanId);
      expect(exportRun!.attributes).toMatchObject({ 'sluice.export': name, 'sluice.destination': destination, 'sluice.rows': 100_000, 'sluice.bytes': run.body.bytes, 'sluice.object': run.body.object });
      const uploads = named(spans, 'sluice.upload.part');
      for (const upload of uploads) expect(upload.parentSpanId).toBe(exportRun!.spanId);
      expect(uploads.map((upload) => upload.attributes['sluice.part']).sort()).toEqual(Array.from({ length: parts }, (_, i) => i + 1));
      expect(uploads.reduce((sum, upload) => sum + Number(upload.attributes['sluice.bytes']), 0)).toBe(run.body.bytes);
      const statement = spans.find((span) => span.attributes['db.system.name'] !== undefined)!;
      expect(statement.parentSpanId).toBe(exportRun!.spanId);
      expect(statement.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'db.response.returned_rows': 100_000, 'sluice.query.name': query });
    } finally {
      await pgExec(`drop table if exists ${table}`);
    }
  });
});

describe('a stored result', () => {
  it('has its run\'s span under the request that started it, the statement under the run', async () => {
    const res = await origin.call('POST', '/results', { sql: 'SELECT g FROM generate_series(1, 10) g', connection_name: connection, format: 'csv' }, admin);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    const spans = await traceOf(res, (found) => named(found, 'sluice.result.run').length === 1 && found.some((span) => span.kind === 3));
    const [resultRun] = named(spans, 'sluice.result.run');
    expect(resultRun!.parentSpanId).toBe(spans.find((span) => span.kind === 2)!.spanId);
    expect(resultRun!.attributes).toMatchObject({ 'sluice.format': 'csv', 'sluice.destination': 'local' });
    expect(spans.find((span) => span.kind === 3)!.parentSpanId).toBe(resultRun!.spanId);
  });
});

describe('an MCP tool call', () => {
  it('has sluice.mcp.tool with the tool\'s name, and the statement under it', async () => {
    const client = await connectMcp(`${origin.url}/mcp`, admin);
    try {
      await client.call('execute_sql', { sql: 'select 42 as answer', connection_name: connection });
    } finally {
      await client.close();
    }
    const tool = await eventually(() => receiver.spans.find((span) => span.name === 'sluice.mcp.tool'));
    expect(tool.attributes).toMatchObject({ 'sluice.mcp.tool.name': 'execute_sql' });
    const statement = await eventually(() => receiver.spans.find((span) => span.parentSpanId === tool.spanId && span.kind === 3));
    expect(statement.attributes['db.response.returned_rows']).toBe(1);
  });
});

describe('a configuration apply', () => {
  it('has sluice.config.apply under the request, with the file\'s SHA-256', async () => {
    const res = await origin.fetch('/api/v1/config/apply?dry_run=true', {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/yaml' },
      body: `format: sluice-config\nformat_version: 1\nqueries:\n  - name: ${unique('cfg_q')}\n    connection_name: examples\n    sql: SELECT 1\n`,
    });
    const plan = await res.json();
    expect(res.status, JSON.stringify(plan)).toBe(200);
    const spans = await traceOf(res, (found) => named(found, 'sluice.config.apply').length === 1);
    expect(named(spans, 'sluice.config.apply')[0]!.attributes).toMatchObject({ 'sluice.config.sha256': plan.sha256, 'sluice.config.dry_run': true, 'sluice.config.changed': true });
  });
});

describe('an origin without tracing', () => {
  it('answers no traceresponse, logs no trace ids and records none in history', async () => {
    const res = await untraced.fetch('/execute_sql', { method: 'POST', headers: { ...admin, 'content-type': 'application/json', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }, body: JSON.stringify({ connection_name: 'examples', sql: 'select 1' }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('traceresponse')).toBeNull();
    const requestId = res.headers.get('x-request-id')!;
    const line = await eventually(() => untraced.logs.find((text) => text.includes(`"request_id":"${requestId}"`) && text.includes('sluice.access')));
    expect(JSON.parse(line)).not.toHaveProperty('trace_id');
    const history = await untraced.call('GET', '/api/v1/history?limit=5', undefined, admin);
    expect(history.body.items.find((item: { request_id: string }) => item.request_id === requestId)).toMatchObject({ trace_id: null });
  });
});

describe('what the spans may carry', () => {
  it('no key or header token in any span received', () => {
    const text = JSON.stringify(receiver.spans, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
    for (const secret of [ADMIN_KEY, HEADER_TOKEN, s3.secretAccessKey]) expect(text).not.toContain(secret);
  });
});
