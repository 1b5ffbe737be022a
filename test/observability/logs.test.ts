import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrigin, type Origin } from '../harness/origin.ts';
import { type Observed, SLOW_THRESHOLD, expectNoSecrets, logLines, startObserved } from './fixture.ts';
import { eventually } from '../harness/eventually.ts';

/**
 * Log lines as a log pipeline reads them (spec, Observability): one JSON
 * object a line with SLUICE_JSON_LOGS=1, every line naming its request and
 * caller, query lines with the statement's hash and window, slow-query
 * warnings from SLUICE_SLOW_QUERY_THRESHOLD, and a readable line otherwise.
 */

const CORE = ['time', 'level', 'logger', 'request_id', 'key', 'message'];
const ACCESS = [...CORE, 'method', 'path', 'status', 'duration_ms', 'serialization_ms'];
const QUERY = [...CORE, 'connection', 'dialect', 'limit', 'offset', 'timeout', 'sql_hash'];
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const sorted = (line: object) => Object.keys(line).sort();

let o: Observed;
beforeAll(async () => {
  o = await startObserved();
});
afterAll(async () => {
  await o?.stop();
});

const linesOf = (requestId: string) => logLines(o.origin).filter((line) => line.request_id === requestId);
const accessLine = (requestId: string) => eventually(() => linesOf(requestId).find((line) => line.logger === 'sluice.access'), { what: `access line of ${requestId}` });

describe('JSON lines', () => {
  it('an access line has exactly the spec fields, its request id and the caller named admin', async () => {
    const sql = 'select 1 as one';
    const run = await o.sql(sql, o.pg, 'page=2&page_size=5');
    expect(run.status).toBe(200);
    const access = await accessLine(run.requestId);
    expect(sorted(access)).toEqual([...ACCESS].sort());
    expect(access).toMatchObject({ level: 'info', logger: 'sluice.access', key: 'admin', method: 'POST', path: '/execute_sql', status: 200 });
    expect(Number.isNaN(Date.parse(String(access.time)))).toBe(false);
    expect(access.duration_ms).toEqual(expect.any(Number));
    // A paged response was serialised: its time is reported.
    expect(access.serialization_ms).toEqual(expect.any(Number));
  });

  it('a query line has exactly the spec fields: connection, dialect, window, timeout and the full SHA-256 of the SQL', async () => {
    const sql = 'select 2 as two';
    const run = await o.sql(sql, o.pg, 'page=3&page_size=4&timeout=7');
    expect(run.status).toBe(200);
    const query = await eventually(() => linesOf(run.requestId).find((line) => line.logger === 'sluice.query'), { what: 'query line' });
    expect(sorted(query)).toEqual([...QUERY].sort());
    expect(query).toMatchObject({
      level: 'info',
      key: 'admin',
      message: 'query',
      connection: o.pg,
      dialect: 'postgres',
      limit: 4,
      offset: 8,
      timeout: 7,
      sql_hash: sha256(sql),
    });
    expect(String(query.sql_hash)).toMatch(/^[0-9a-f]{64}$/);
    // The SQL itself is never logged.
    expect(o.origin.logs.some((line) => line.includes(sql))).toBe(false);
  });

  it('a stream has no window and no serialisation time', async () => {
    const run = await o.sql('select 3 as three', o.pg, 'stream=true&format=csv');
    expect(run.status).toBe(200);
    const query = await eventually(() => linesOf(run.requestId).find((line) => line.logger === 'sluice.query'), { what: 'query line' });
    expect(query).toMatchObject({ limit: null, offset: null });
    expect((await accessLine(run.requestId)).serialization_ms).toBeNull();
  });

  it('every line of a request carries the id the client got in X-Request-Id', async () => {
    const run = await o.sql('select 4', o.pg);
    await accessLine(run.requestId);
    const lines = linesOf(run.requestId);
    expect(lines.map((line) => line.logger).sort()).toEqual(['sluice.access', 'sluice.query']);
    for (const line of lines) expect(line.key).toBe('admin');
  });

  it('an unauthenticated request and a public endpoint are logged with the caller -', async () => {
    const refused = await o.origin.call('GET', '/api/v1/queries');
    expect(refused.status).toBe(401);
    const health = await o.origin.call('GET', '/health');
    for (const res of [refused, health]) {
      const access = await accessLine(res.headers.get('x-request-id')!);
      expect(access.key).toBe('-');
      expect(access.request_id).toMatch(/^[0-9a-f]{12}$/);
    }
  });

  it('lines outside any request (startup) carry - for both', () => {
    const startup = logLines(o.origin).find((line) => String(line.message).includes('listening'));
    expect(startup).toMatchObject({ request_id: '-', key: '-', logger: 'sluice' });
  });

  it('a failed query is logged as a query and answered with its request id', async () => {
    const run = await o.sql('select * from no_such_table_here', o.pg);
    expect(run.status).toBe(500);
    const access = await accessLine(run.requestId);
    expect(access.status).toBe(500);
    expect(linesOf(run.requestId).some((line) => line.logger === 'sluice.query')).toBe(true);
  });
});

describe('a client that leaves before its answer', () => {
  it('is logged and counted as 499, not as the 500 of the statement cancelled for it', async () => {
    const sql = `select pg_sleep(5), '${randomUUID()}' as tag`;
    const controller = new AbortController();
    const request = o.origin.fetch('/execute_sql', {
      method: 'POST',
      headers: { 'X-API-Key': o.adminKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ sql, connection_name: o.pg }),
      signal: controller.signal,
    });
    const query = await eventually(() => logLines(o.origin).find((line) => line.logger === 'sluice.query' && line.sql_hash === sha256(sql)), { what: 'query line' });
    controller.abort();
    await expect(request).rejects.toThrow();
    const access = await accessLine(query.request_id);
    expect(access).toMatchObject({ path: '/execute_sql', status: 499, message: 'POST /execute_sql 499' });
    const metrics = await o.origin.fetch('/metrics');
    expect(await metrics.text()).toMatch(/^sluice_requests_total\{[^}]*status="499"[^}]*\} 1$/m);
  });
});

describe('slow queries', () => {
  const slowLines = (requestId: string) => linesOf(requestId).filter((line) => line.level === 'warn' && line.logger === 'sluice.query');

  it(`a query taking at least ${SLOW_THRESHOLD} s logs a warning with its duration and the query fields`, async () => {
    const sql = 'select pg_sleep(0.3) as slept';
    const run = await o.sql(sql, o.pg);
    expect(run.status).toBe(200);
    const [warning] = await eventually(() => (slowLines(run.requestId).length > 0 ? slowLines(run.requestId) : null), { what: 'slow-query warning' });
    expect(sorted(warning)).toEqual([...QUERY, 'duration_ms'].sort());
    expect(warning).toMatchObject({ key: 'admin', connection: o.pg, dialect: 'postgres', sql_hash: sha256(sql) });
    expect(warning.duration_ms as number).toBeGreaterThanOrEqual(SLOW_THRESHOLD * 1000);
  });

  it('a fast query logs none', async () => {
    const run = await o.sql('select 5', o.pg);
    await accessLine(run.requestId);
    expect(slowLines(run.requestId)).toEqual([]);
  });
});

describe('readable lines, and a threshold of 0', () => {
  let plain: Origin;
  const key = 'readable-admin-key-0123456789';
  beforeAll(async () => {
    plain = await startOrigin({ env: { SLUICE_API_KEY: key, SLUICE_SLOW_QUERY_THRESHOLD: '0' } });
  });
  afterAll(async () => {
    await plain?.stop();
  });

  it('without SLUICE_JSON_LOGS a line reads as time, level, logger, [request id, caller], message', async () => {
    const res = await plain.call('POST', '/execute_sql', { sql: 'select 1', connection_name: 'examples' }, { 'X-API-Key': key });
    const id = res.headers.get('x-request-id')!;
    const line = await eventually(() => plain.logs.find((l) => l.includes(`[${id} admin]`) && l.includes('sluice.access')), { what: 'readable access line' });
    expect(line).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z INFO  sluice\\.access \\[${id} admin\\] POST /execute_sql \\d{3} \\{`));
    expect(() => JSON.parse(line)).toThrow();
  });

  it('a request path with CR, LF, NUL or other control characters cannot forge a line: they are written escaped', async () => {
    const forged = `FORGED-${randomUUID()}`;
    const res = await plain.fetch(`/q/x%0a${forged}%0d%0a${forged}%1b%7f%e2%80%a8?a=%0a${forged}`, { headers: { 'X-API-Key': key } });
    const id = res.headers.get('x-request-id')!;
    const line = await eventually(() => plain.logs.find((l) => l.includes(`[${id} admin]`) && l.includes('sluice.access')), { what: 'readable access line' });
    // Every line the process printed is read back split on \n: no line may start with the forged text.
    expect(plain.logs.filter((l) => l.startsWith(forged))).toEqual([]);
    expect(line).toContain(`/q/x\\n${forged}\\r\\n${forged}\\u001b\\u007f\\u2028`);
    expect(line).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z /);
  });

  it('0 disables the slow-query warning (every query takes at least 0 s)', async () => {
    const res = await plain.call('POST', '/execute_sql', { sql: 'select 2', connection_name: 'examples' }, { 'X-API-Key': key });
    const id = res.headers.get('x-request-id')!;
    await eventually(() => plain.logs.find((l) => l.includes(`[${id} admin]`) && l.includes('sluice.access')), { what: 'access line' });
    expect(plain.logs.filter((l) => l.includes(id) && l.includes('WARN'))).toEqual([]);
  });
});

describe('secrets', () => {
  it('no line this file caused carries the admin key or the connection password', () => {
    expectNoSecrets(o.origin, [o.adminKey, o.password]);
  });
});
