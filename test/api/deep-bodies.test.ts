import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { PG } from './connections-fixtures.ts';
import { unique } from '../harness/unique.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';

/**
 * Bodies whose shape alone costs the server: JSON nested thousands of
 * levels deep, and a YAML "billion laughs" whose aliases expand
 * exponentially. Each is a 400 in the route's error shape (never a 500):
 * a body deeper than 64 levels is refused as it is read, and a YAML file's
 * aliases are bounded.
 */

let origin: Origin;
let pg: string;
let saved: string;

beforeAll(async () => {
  origin = await sharedOrigin();
  pg = unique('deep_pg');
  const made = await origin.call('POST', '/api/v1/connections', { name: pg, db: 'postgres', ...PG });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  saved = unique('deep_q');
  const query = await origin.call('POST', '/api/v1/queries', { name: saved, sql: 'SELECT :v AS v', parameters: { v: 'string' }, connection_name: pg, publish: true });
  expect(query.status, JSON.stringify(query.body)).toBe(201);
});

afterAll(async () => {
  await origin?.stop();
});

/** `{"a": {"a": ... 1 ...}}`, `levels` objects deep, as text (JSON.stringify itself would recurse). */
const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

const post = async (path: string, body: string, contentType = 'application/json') => {
  const res = await origin.fetch(path, { method: 'POST', headers: { 'content-type': contentType }, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as any };
};

const BILLION_LAUGHS = [
  'format: sluice-config',
  'format_version: 1',
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
  'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
  'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
  'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
  'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
  'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
  'h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]',
  'i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]',
  'queries: [{name: laughs, sql: "SELECT 1", description: *i}]',
].join('\n');

describe('a body nested 5,000 levels deep', () => {
  it('is 400 {error} on /execute_sql and /q', async () => {
    for (const [path, body] of [
      ['/execute_sql', `{"sql": "SELECT 1", "connection_name": "${pg}", "params": ${nested(5000)}}`],
      [`/q/${saved}`, `{"params": {"v": ${nested(5000)}}}`],
      [`/q/${saved}`, `{"v": ${nested(5000)}}`],
    ]) {
      const res = await post(path, body);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(Object.keys(res.body), path).toContain('error');
      expect(res.body.error, path).toMatch(/64 levels/);
    }
  });

  it('is 400 invalid_request on the Management API, and invalid_config for a configuration file', async () => {
    const made = await post('/api/v1/connections', `{"name": "${unique('deep')}", "db": "duckdb", "database": "x.duckdb", "options": ${nested(5000)}}`);
    expect(made.status, JSON.stringify(made.body)).toBe(400);
    expect(made.body).toMatchObject({ code: 'invalid_request', request_id: made.headers.get('x-request-id') });
    for (const contentType of ['application/json', 'application/yaml']) {
      const file = await post('/api/v1/config/diff', `{"format": "sluice-config", "format_version": 1, "queries": [{"name": "deep", "sql": "SELECT 1", "parameters": ${nested(5000)}}]}`, contentType);
      expect(file.status, `${contentType}: ${JSON.stringify(file.body)}`).toBe(400);
      expect(file.body).toMatchObject({ code: 'invalid_config', request_id: file.headers.get('x-request-id') });
      expect(file.body.error).toMatch(/64 levels/);
    }
  });

  it('keeps a body 60 levels deep', async () => {
    const res = await post('/execute_sql', `{"sql": "SELECT 1 AS one", "connection_name": "${pg}", "params": {"unused": ${nested(58)}}}`);
    expect(res.status, JSON.stringify(res.body)).not.toBe(500);
    expect(res.body.error ?? '').not.toMatch(/64 levels/);
  });
});

describe('a YAML alias bomb', () => {
  it('is 400 invalid_config on config diff, naming the aliases', async () => {
    const res = await post('/api/v1/config/diff', BILLION_LAUGHS, 'application/yaml');
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_config', request_id: res.headers.get('x-request-id') });
    expect(res.body.error).toMatch(/alias/i);
  });

  it('is 400 on a collection import', async () => {
    const res = await post('/api/v1/collections/import', BILLION_LAUGHS.replace('format: sluice-config', 'format: sluice-collection'), 'application/yaml');
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_request' });
  });
});
