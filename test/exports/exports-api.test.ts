import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { exportRoot, localDestination, newExport, savedQuery } from './fixture.ts';

/** The exports resource: fields, checks against the destination and the published query, ETags, audit. */

let origin: Origin;
let root: string;
let destination: string;
let query: string;

beforeAll(async () => {
  root = await exportRoot();
  origin = await startOrigin({ env: { SLUICE_EXPORT_DIRS: root } });
  destination = await localDestination(origin, root);
  query = await savedQuery(origin, { sql: 'SELECT id, title FROM films WHERE id > :after ORDER BY id', parameters: { after: 'integer' } });
});

afterAll(async () => {
  await origin?.stop();
});

describe('exports', () => {
  it('are created with defaults, read with an ETag and listed', async () => {
    const name = await newExport(origin, { query, format: 'csv', destination, params: { after: 0 } });
    const read = await origin.call('GET', `/api/v1/exports/${name}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toMatch(/^"e\d+\.1"$/);
    expect(read.body).toMatchObject({
      name,
      query,
      params: { after: 0 },
      format: 'csv',
      destination,
      path: '{name}/{date}/{run}',
      incremental: null,
      skip_empty: true,
      timeout: null,
      watermark: null,
      running: false,
    });
    const list = await origin.call('GET', '/api/v1/exports');
    expect(list.body.exports.map((e: { name: string }) => e.name)).toContain(name);
  });

  it('refuse every problem at once, writing nothing', async () => {
    const draft = await savedQuery(origin, { sql: 'SELECT 1 AS one', publish: false });
    const res = await origin.call('POST', '/api/v1/exports', {
      name: 'bad-one',
      query: draft,
      format: 'csv',
      destination: 'nowhere',
      path: '../{name}',
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
    expect(Object.keys(res.body.errors).sort()).toEqual(['destination', 'path', 'query']);
    expect((await origin.call('GET', '/api/v1/exports/bad-one')).status).toBe(404);
    expect(await readdir(root)).toEqual([]);
  });

  it('check the params against the query rules, and the incremental parameter against the query', async () => {
    const bad = await origin.call('POST', '/api/v1/exports', { name: 'bad-params', query, format: 'csv', destination, params: { after: 'soon' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.params).toEqual({ after: 'must be an integer' });
    const missing = await origin.call('POST', '/api/v1/exports', { name: 'bad-params', query, format: 'csv', destination });
    expect(missing.body.errors.params).toEqual({ after: 'is required' });
    const inc = await origin.call('POST', '/api/v1/exports', {
      name: 'bad-params',
      query,
      format: 'csv',
      destination,
      params: { after: 0 },
      incremental: { column: 'id', parameter: 'since', start: 0 },
    });
    expect(inc.status).toBe(400);
    expect(inc.body.errors).toHaveProperty('incremental');
  });

  it('refuse unknown fields, formats the spec does not list, and paths leaving the prefix', async () => {
    const base = { query, destination, params: { after: 0 } };
    expect((await origin.call('POST', '/api/v1/exports', { ...base, name: 'x1', format: 'csv', colour: 'red' })).body.code).toBe('unknown_field');
    expect((await origin.call('POST', '/api/v1/exports', { ...base, name: 'x1', format: 'xlsx' })).status).toBe(400);
    for (const path of ['/abs/{name}', 'a/../../b', 'a\\b', '{nope}', 'a//b']) {
      const res = await origin.call('POST', '/api/v1/exports', { ...base, name: 'x1', format: 'csv', path });
      expect(res.status, path).toBe(400);
      expect(res.body.errors, path).toHaveProperty('path');
    }
  });

  it('answer 409 export_exists for a taken name', async () => {
    const name = await newExport(origin, { query, format: 'ndjson', destination, params: { after: 0 } });
    const again = await origin.call('POST', '/api/v1/exports', { name, query, format: 'ndjson', destination, params: { after: 0 } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('export_exists');
  });

  it('change under If-Match, rewind and reset the watermark, and audit each change', async () => {
    const name = await newExport(origin, { query, format: 'csv', destination, incremental: { column: 'id', parameter: 'after', start: 0 } });
    const read = await origin.call('GET', `/api/v1/exports/${name}`);
    const changed = await origin.call('PATCH', `/api/v1/exports/${name}`, { format: 'ndjson', watermark: 7 }, { 'If-Match': read.headers.get('etag')! });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ format: 'ndjson', watermark: 7 });
    const stale = await origin.call('PATCH', `/api/v1/exports/${name}`, { format: 'csv' }, { 'If-Match': read.headers.get('etag')! });
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe('precondition_failed');
    const reset = await origin.call('PATCH', `/api/v1/exports/${name}`, { watermark: null });
    expect(reset.body.watermark).toBeNull();
    const audit = await origin.call('GET', `/api/v1/audit?target=${name}`);
    const actions = audit.body.items.map((entry: { action: string; changes: Record<string, unknown> }) => [entry.action, entry.changes.watermark]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ['create_export', undefined],
        ['update_export', { from: null, to: 7 }],
        ['update_export', { from: 7, to: null }],
      ]),
    );
  });

  it('refuse a watermark on an export that is not incremental', async () => {
    const name = await newExport(origin, { query, format: 'csv', destination, params: { after: 0 } });
    const res = await origin.call('PATCH', `/api/v1/exports/${name}`, { watermark: 3 });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveProperty('watermark');
  });

  it('are deleted (404 afterwards; the delete audited)', async () => {
    const name = await newExport(origin, { query, format: 'csv', destination, params: { after: 0 } });
    expect((await origin.call('DELETE', `/api/v1/exports/${name}`)).status).toBe(200);
    expect((await origin.call('GET', `/api/v1/exports/${name}`)).body.code).toBe('export_not_found');
    const audit = await origin.call('GET', `/api/v1/audit?target=${name}`);
    expect(audit.body.items.map((entry: { action: string }) => entry.action)).toContain('delete_export');
  });

  it('keep their destination from being deleted', async () => {
    const target = await localDestination(origin, root);
    await newExport(origin, { query, format: 'csv', destination: target, params: { after: 0 } });
    const res = await origin.call('DELETE', `/api/v1/destinations/${target}`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('destination_in_use');
  });

  it('are in the OpenAPI document', async () => {
    const doc = await origin.call('GET', '/openapi.json');
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/api/v1/exports', '/api/v1/exports/{name}', '/api/v1/exports/{name}/runs']));
  });
});
