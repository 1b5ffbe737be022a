import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { PG } from './connections-fixtures.ts';
import { unique } from '../harness/unique.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';

/**
 * Input no store or database can take: a NUL anywhere (path, query string,
 * body) and numbers past what the store keeps. Each is a 400 in the route's
 * error shape, never a 500, and nothing is written.
 */

let origin: Origin;
let pg: string;
/** A saved query with one version, on `pg`. */
let saved: string;

beforeAll(async () => {
  origin = await sharedOrigin();
  pg = unique('bad_input_pg');
  const made = await origin.call('POST', '/api/v1/connections', { name: pg, db: 'postgres', ...PG });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  saved = unique('bad_input_q');
  const query = await origin.call('POST', '/api/v1/queries', { name: saved, sql: 'SELECT 1 AS one', connection_name: pg, publish: true });
  expect(query.status, JSON.stringify(query.body)).toBe(201);
});

afterAll(async () => {
  await origin?.stop();
});

/** 400 `invalid_request` in the management shape, with its request id. */
function expectManagement400(res: { status: number; headers: Headers; body: any }, errors?: Record<string, RegExp>): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toMatchObject({ code: 'invalid_request', request_id: res.headers.get('x-request-id') });
  expect(typeof res.body.error).toBe('string');
  for (const [field, problem] of Object.entries(errors ?? {})) expect(res.body.errors?.[field], field).toMatch(problem);
}

/** 400 in the query routes' shape: `{error}`, plus `errors` when given. */
function expectQuery400(res: { status: number; body: any }, errors?: Record<string, RegExp>): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(Object.keys(res.body).sort()).toEqual(errors ? ['error', 'errors'] : ['error']);
  for (const [field, problem] of Object.entries(errors ?? {})) expect(res.body.errors[field], field).toMatch(problem);
}

const NUL = /NUL/;

describe('a NUL in the path or the query string', () => {
  it('is 400 on a management lookup by name, plain or workspace-scoped', async () => {
    for (const path of [
      '/api/v1/connections/a%00b',
      '/api/v1/queries/a%00b',
      `/api/v1/queries/${saved}/versions/1%00`,
      '/api/v1/api-keys/%00',
      '/api/v1/roles/a%00',
      '/w/default/api/v1/connections/a%00b',
      '/w/a%00b/api/v1/connections',
    ]) {
      const res = await origin.call('GET', path);
      expectManagement400(res);
      expect(res.body.error, path).toMatch(NUL);
    }
  });

  it('is 400 in a list filter, naming the argument', async () => {
    expectManagement400(await origin.call('GET', '/api/v1/audit?q=%00'), { q: NUL });
    expectManagement400(await origin.call('GET', '/api/v1/queries?search=%00'), { search: NUL });
    expectManagement400(await origin.call('GET', '/api/v1/history?query=a%00&limit=5'), { query: NUL });
    expectManagement400(await origin.call('GET', '/api/v1/connections?a%00=1'), { 'a\u0000': NUL });
  });

  it('is 400 in the query routes\' shape on /q and /execute_sql', async () => {
    expectQuery400(await origin.call('GET', '/q/a%00b'));
    expectQuery400(await origin.call('GET', `/q/${saved}?connection_name=a%00`), { connection_name: NUL });
    expectQuery400(await origin.call('POST', '/execute_sql?format=%00', { sql: 'SELECT 1', connection_name: pg }), { format: NUL });
    // Still a request like any other: answered, logged, and the next one runs.
    expect((await origin.call('GET', `/q/${saved}`)).body).toEqual([{ one: 1 }]);
  });
});

describe('a NUL in a body', () => {
  it('is 400 naming the field on every management body, and nothing is saved', async () => {
    const name = unique('nul_q');
    const bodies: Array<[string, string, Record<string, unknown>, string]> = [
      ['POST', '/api/v1/queries', { name, sql: 'SELECT 1', connection_name: pg, description: 'a\u0000b' }, 'description'],
      ['POST', '/api/v1/queries', { name, sql: 'SELECT 1 -- \u0000', connection_name: pg }, 'sql'],
      ['POST', '/api/v1/queries', { name, sql: 'SELECT 1', connection_name: `${pg}\u0000` }, 'connection_name'],
      ['POST', '/api/v1/queries', { name, sql: 'SELECT 1', connection_name: pg, tags: ['ok', '\u0000'] }, 'tags.1'],
      ['POST', '/api/v1/queries', { name, sql: 'SELECT :p', connection_name: pg, parameters: { p: { type: 'string', description: '\u0000' } } }, 'parameters.p.description'],
      ['POST', `/api/v1/queries/${saved}/versions`, { sql: 'SELECT 2', author: '\u0000' }, 'author'],
      ['POST', '/api/v1/connections', { name: unique('nul_c'), db: 'postgres', ...PG, host: '127.0.0.1\u0000' }, 'host'],
      ['POST', '/api/v1/connections', { name: unique('nul_c'), db: 'postgres', ...PG, options: { application_name: '\u0000' } }, 'options.application_name'],
      ['POST', '/api/v1/workspaces', { name: unique('nul_w'), description: '\u0000' }, 'description'],
      ['POST', '/api/v1/api-keys', { name: unique('nul_k'), rate_limit: '1/second\u0000' }, 'rate_limit'],
    ];
    for (const [method, path, body, field] of bodies) {
      expectManagement400(await origin.call(method, path, body), { [field]: NUL });
    }
    expect((await origin.call('GET', `/api/v1/queries/${name}`)).status).toBe(404);
    expect((await origin.call('GET', `/api/v1/queries/${saved}`)).body.versions).toHaveLength(1);
  });

  it('is 400 in an ad-hoc statement, and a parameter error in its params', async () => {
    expectQuery400(await origin.call('POST', '/execute_sql', { sql: 'SELECT 1 -- \u0000', connection_name: pg }), { sql: NUL });
    expectQuery400(await origin.call('POST', '/execute_sql', { sql: 'SELECT CAST(:a AS text) AS a', params: { a: 'x\u0000' }, connection_name: pg }), { a: NUL });
  });
});

describe('numbers past what the store keeps', () => {
  const ttlProblem = /cache_ttl.*0 to 31536000/;

  it('cache_ttl is a whole number of seconds up to a year, on create, new version and PATCH', async () => {
    for (const cache_ttl of [1e308, 3_000_000_000, 31_536_001, -1, 1.5, '60']) {
      const name = unique('ttl_q');
      const created = await origin.call('POST', '/api/v1/queries', { name, sql: 'SELECT 1', connection_name: pg, cache_ttl });
      expectManagement400(created, { cache_ttl: /0 to 31536000/ });
      expect((await origin.call('GET', `/api/v1/queries/${name}`)).status).toBe(404);
      expectManagement400(await origin.call('POST', `/api/v1/queries/${saved}/versions`, { sql: 'SELECT 2', cache_ttl }), { cache_ttl: /0 to 31536000/ });
      const patched = await origin.call('PATCH', `/api/v1/queries/${saved}/versions/1`, { cache_ttl });
      expectManagement400(patched);
      expect(patched.body.error).toMatch(ttlProblem);
    }
    const year = await origin.call('PATCH', `/api/v1/queries/${saved}/versions/1`, { cache_ttl: 31_536_000 });
    expect(year.status, JSON.stringify(year.body)).toBe(200);
    expect((await origin.call('PATCH', `/api/v1/queries/${saved}/versions/1`, { cache_ttl: null })).status).toBe(200);
  });

  it('a version to publish is at most 999999999', async () => {
    for (const version of [3_000_000_000, 9007199254740991, 1e308]) {
      expectManagement400(await origin.call('POST', `/api/v1/queries/${saved}/publish`, { version }), { version: /whole number|at most 999999999/ });
    }
  });

  it('a request timeout is at most a week', async () => {
    for (const timeout of [1e308, 604_801, '99999999999']) {
      const res = await origin.call('POST', '/execute_sql', { sql: 'SELECT 1', connection_name: pg, timeout });
      expectQuery400(res);
      expect(res.body.error).toMatch(/timeout.*604800/);
    }
    expect((await origin.call('POST', '/execute_sql', { sql: 'SELECT 1 AS one', connection_name: pg, timeout: 604_800 })).body).toEqual([{ one: 1 }]);
  });

  it('a row-window parameter is at most the largest 64-bit integer', async () => {
    const sql = 'SELECT 1 AS one LIMIT :n';
    for (const n of [1e300, '99999999999999999999', 9223372036854775808]) {
      const res = await origin.call('POST', '/execute_sql', { sql, params: { n }, connection_name: pg });
      expectQuery400(res);
      expect(res.body.error).toMatch(/:n .*0 to 9223372036854775807/);
    }
    expect((await origin.call('POST', '/execute_sql', { sql, params: { n: '9223372036854775807' }, connection_name: pg })).body).toEqual([{ one: 1 }]);
  });
});
