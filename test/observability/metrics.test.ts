import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Observed, expectNoSecrets, startObserved } from './fixture.ts';

/**
 * `/metrics` after real requests: exactly the spec's series with the
 * `sluice_` prefix and their labels, route templates (never raw paths) as
 * `endpoint`, valid exposition text for `promtool check metrics`, and
 * SLUICE_METRICS_TOKEN as `Authorization: Bearer <token>`.
 */

const SERIES = [
  'sluice_requests_total',
  'sluice_request_duration_seconds',
  'sluice_queries_total',
  'sluice_query_duration_seconds',
  'sluice_rows_returned_total',
  'sluice_dry_runs_total',
  'sluice_active_queries',
  'sluice_serialization_duration_seconds',
  'sluice_pool_idle_connections',
  'sluice_rate_limit_rejections_total',
  'sluice_stream_exports_total',
  'sluice_stream_pipes',
];

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parse(text: string): { types: Record<string, string>; samples: Sample[] } {
  const types: Record<string, string> = {};
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types[type[1]] = type[2];
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return { types, samples };
}

const TOKEN = 'metrics-token-5f0c1e2d3b4a';
let o: Observed;
let text: string;
let metrics: ReturnType<typeof parse>;
let queryName: string;
let limitedKey: string;

beforeAll(async () => {
  o = await startObserved({ SLUICE_METRICS_TOKEN: TOKEN, SLUICE_STREAM_MAX_ROWS: '5' });
  queryName = `obs_metrics_${Date.now()}`;
  const created = await o.api('POST', '/api/v1/queries', { name: queryName, sql: 'select 1 as one union all select 2', connection_name: o.pg, publish: true });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  // Real traffic: paged and streamed runs (one cut at the cap), a failed one, a saved query, a 404, a 401.
  expect((await o.sql('select generate_series(1, 3) as n')).status).toBe(200);
  expect((await o.sql('select generate_series(1, 3) as n', o.pg, 'stream=true&format=csv')).status).toBe(200);
  const capped = await o.origin.fetch('/execute_sql?stream=true&format=ndjson', {
    method: 'POST',
    headers: { 'X-API-Key': o.adminKey },
    json: { sql: 'select generate_series(1, 50) as n', connection_name: o.pg },
  });
  expect((await capped.text()).trim().split('\n')).toHaveLength(5);
  expect((await o.sql('select * from no_such_table_at_all')).status).toBe(500);
  expect((await o.api('GET', `/q/${queryName}?format=csv`)).status).toBe(200);
  expect((await o.api('GET', '/q/no_such_query_anywhere')).status).toBe(404);
  expect((await o.origin.call('GET', '/api/v1/queries')).status).toBe(401);
  // A scoped key limited to one request a minute: its second is refused.
  const key = await o.api('POST', '/api/v1/api-keys', { name: `obs_limited_${Date.now()}`, connections: [o.pg], rate_limit: '1/minute' });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  limitedKey = key.body.name;
  const byKey = () => o.origin.call('POST', '/execute_sql', { sql: 'select 1', connection_name: o.pg }, { 'X-API-Key': key.body.secret });
  expect((await byKey()).status).toBe(200);
  expect((await byKey()).status).toBe(429);
  const res = await o.origin.fetch('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  text = await res.text();
  metrics = parse(text);
});
afterAll(async () => {
  await o?.stop();
});

const samplesOf = (name: string) => metrics.samples.filter((s) => s.name === name);
const find = (name: string, labels: Record<string, string>) =>
  samplesOf(name).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));

describe('series', () => {
  it('exactly the spec series, all with the sluice_ prefix, no process defaults', () => {
    expect(Object.keys(metrics.types).sort()).toEqual([...SERIES].sort());
    expect(metrics.types).toMatchObject({
      sluice_requests_total: 'counter',
      sluice_request_duration_seconds: 'histogram',
      sluice_queries_total: 'counter',
      sluice_query_duration_seconds: 'histogram',
      sluice_rows_returned_total: 'counter',
      sluice_dry_runs_total: 'counter',
      sluice_active_queries: 'gauge',
      sluice_serialization_duration_seconds: 'histogram',
      sluice_pool_idle_connections: 'gauge',
      sluice_rate_limit_rejections_total: 'counter',
      sluice_stream_exports_total: 'counter',
      sluice_stream_pipes: 'gauge',
    });
  });

  it('requests_total has method, endpoint, status and key; endpoints are route templates', () => {
    for (const s of samplesOf('sluice_requests_total')) expect(Object.keys(s.labels).sort()).toEqual(['endpoint', 'key', 'method', 'status']);
    expect(find('sluice_requests_total', { method: 'POST', endpoint: '/execute_sql', status: '200', key: 'admin' })?.value).toBeGreaterThanOrEqual(3);
    expect(find('sluice_requests_total', { method: 'GET', endpoint: '/q/:name', status: '200', key: 'admin' })?.value).toBe(1);
    expect(find('sluice_requests_total', { method: 'GET', endpoint: '/q/:name', status: '404', key: 'admin' })?.value).toBe(1);
    expect(find('sluice_requests_total', { method: 'GET', endpoint: '/api/v1/queries', status: '401', key: '-' })?.value).toBe(1);
    expect(find('sluice_requests_total', { method: 'POST', endpoint: '/execute_sql', status: '429', key: limitedKey })?.value).toBe(1);
    // No raw path with a query's name in it.
    expect(text).not.toContain(queryName);
    expect(text).not.toContain('no_such_query_anywhere');
  });

  it('request_duration_seconds has method and endpoint', () => {
    const count = find('sluice_request_duration_seconds_count', { method: 'GET', endpoint: '/q/:name' });
    expect(count?.value).toBe(2);
    for (const s of samplesOf('sluice_request_duration_seconds_count')) expect(Object.keys(s.labels).sort()).toEqual(['endpoint', 'method']);
  });

  it('queries_total, query_duration_seconds and rows_returned_total by connection, dialect (and status, key)', () => {
    expect(find('sluice_queries_total', { connection: o.pg, dialect: 'postgres', status: 'success', key: 'admin' })?.value).toBe(4);
    expect(find('sluice_queries_total', { connection: o.pg, dialect: 'postgres', status: 'error', key: 'admin' })?.value).toBe(1);
    expect(find('sluice_queries_total', { connection: o.pg, dialect: 'postgres', status: 'success', key: limitedKey })?.value).toBe(1);
    expect(find('sluice_query_duration_seconds_count', { connection: o.pg, dialect: 'postgres' })?.value).toBe(6);
    // 3 paged + 3 streamed + 5 capped + 2 saved.
    expect(find('sluice_rows_returned_total', { connection: o.pg, dialect: 'postgres', key: 'admin' })?.value).toBe(13);
    expect(find('sluice_rows_returned_total', { connection: o.pg, dialect: 'postgres', key: limitedKey })?.value).toBe(1);
    for (const s of samplesOf('sluice_rows_returned_total')) expect(Object.keys(s.labels).sort()).toEqual(['connection', 'dialect', 'key']);
  });

  it('active_queries and stream_pipes are back to 0; pool_idle_connections counts the pooled session', () => {
    expect(find('sluice_active_queries', {})?.value).toBe(0);
    expect(find('sluice_stream_pipes', {})?.value).toBe(0);
    expect(find('sluice_pool_idle_connections', {})?.value).toBeGreaterThanOrEqual(1);
  });

  it('serialization_duration_seconds counts paged responses only, by format', () => {
    expect(find('sluice_serialization_duration_seconds_count', { format: 'json' })?.value).toBe(2);
    expect(find('sluice_serialization_duration_seconds_count', { format: 'csv' })?.value).toBe(1);
    expect(find('sluice_serialization_duration_seconds_count', { format: 'ndjson' })).toBeUndefined();
  });

  it('stream_exports_total by status: a whole stream is success, a capped one truncated', () => {
    expect(find('sluice_stream_exports_total', { status: 'success' })?.value).toBe(1);
    expect(find('sluice_stream_exports_total', { status: 'truncated' })?.value).toBe(1);
  });

  it('rate_limit_rejections_total counts the 429', () => {
    expect(find('sluice_rate_limit_rejections_total', {})?.value).toBe(1);
  });
});

describe('promtool', () => {
  it('`promtool check metrics` passes on the real output', () => {
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(check.error, 'promtool is missing: run scripts/services.sh (installs Debian prometheus)').toBeUndefined();
    expect(`${check.stdout}${check.stderr}`.trim()).toBe('');
    expect(check.status).toBe(0);
  });
});

describe('SLUICE_METRICS_TOKEN', () => {
  it('without the token, with a wrong one, or with the admin key: 401', async () => {
    const refused: Record<string, string>[] = [{}, { Authorization: 'Bearer wrong-token' }, { Authorization: TOKEN }, { 'X-API-Key': o.adminKey }];
    for (const headers of refused) {
      const res = await o.origin.fetch('/metrics', { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await res.text()).not.toContain('sluice_requests_total');
    }
  });

  it('with Authorization: Bearer <token>: 200 (the scheme in any case)', async () => {
    expect((await o.origin.fetch('/metrics', { headers: { Authorization: `bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('no log line carries the token, the admin key or the connection password', () => {
    expectNoSecrets(o.origin, [TOKEN, o.adminKey, o.password]);
  });
});
