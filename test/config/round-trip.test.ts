import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, testFile } from '../harness/origin.ts';
import { ADMIN_KEY, admin, auditEntries, auditIntact, configFile, exportRoot, sendFile, startConfigOrigin } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/** Export from a server holding one of every kind, apply to a fresh one: the diff is empty, and a second apply writes nothing. */

let source: Origin;
let target: Origin;
let root: string;

beforeAll(async () => {
  root = await exportRoot();
  [source, target] = await Promise.all([startConfigOrigin({ env: { SLUICE_EXPORT_DIRS: root } }), startConfigOrigin({ env: { SLUICE_EXPORT_DIRS: root } })]);
});

afterAll(async () => {
  await Promise.all([source?.stop(), target?.stop()]);
});

async function made(origin: Origin, path: string, body: Record<string, unknown>): Promise<any> {
  const res = await admin(origin, 'POST', path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('config export', () => {
  it('applies back to the same state on a fresh server', async () => {
    const s = unique('rt');
    await made(source, '/api/v1/connections', { name: `duck_${s}`, db: 'duckdb', database: testFile(`${s}.duckdb`), options: { stream_threads: 1 } });
    await made(source, '/api/v1/connections', { name: `pg_${s}`, db: 'postgres', host: '127.0.0.1', user: 'postgres', password: 'a-literal-pw', database: 'test', active: false });
    await made(source, '/api/v1/destinations', { name: `dest_${s}`, url: root });
    await made(source, '/api/v1/queries', {
      name: `q_${s}`,
      sql: 'SELECT id, title FROM films WHERE id > :after ORDER BY id',
      parameters: { after: { type: 'integer', min: 0, description: 'lower bound' } },
      connection_name: 'examples',
      collection: `col-${s}`,
      tags: ['films'],
      cache_ttl: 30,
      description: 'films after an id',
      publish: true,
    });
    await made(source, '/api/v1/queries', { name: `draft_${s}`, sql: 'SELECT 1 AS one', connection_name: 'examples', publish: false });
    await made(source, '/api/v1/queries/draft_' + s + '/versions', { sql: 'SELECT 2 AS two', connection_name: 'examples' });
    await made(source, '/api/v1/roles', { name: `role_${s}`, collections: [`col-${s}`], rate_limit: '10/minute', allowed_ips: ['10.0.0.0/8', '127.0.0.1'] });
    const fromRole = await made(source, '/api/v1/api-keys', { name: `key_${s}`, role: `role_${s}`, expires_at: '2099-12-31' });
    await made(source, '/api/v1/api-keys', { name: `own_${s}`, connections: ['examples'], queries: [{ name: `q_${s}`, allow_writes: true }], max_rows: 3, active: false, budget: { rows_per_day: 5000, db_seconds_per_day: 1.5 } });
    await made(source, '/api/v1/exports', { name: `exp_${s}`, query: `q_${s}`, format: 'ndjson', destination: `dest_${s}`, params: { after: 1 }, incremental: { column: 'id', parameter: 'after', start: 0 }, skip_empty: false });

    const json = await admin(source, 'GET', '/api/v1/config/export');
    expect(json.status).toBe(200);
    const yaml = await source.fetch('/api/v1/config/export', { headers: { 'x-api-key': ADMIN_KEY, accept: 'application/yaml' } });
    expect(yaml.headers.get('content-type')).toContain('application/yaml');
    const fromYaml = parse(await yaml.text());
    expect(fromYaml).toEqual(json.body);
    const file = json.body;
    expect(file.connections.find((c: any) => c.name === `pg_${s}`).password).toBe(`\${SLUICE_REF_PW_PG_${s.toUpperCase()}}`);
    expect(file.api_keys.find((k: any) => k.name === `key_${s}`)).toMatchObject({ role: `role_${s}`, expires_at: '2099-12-31' });
    expect(file.api_keys.find((k: any) => k.name === `own_${s}`).budget).toEqual({ max_estimated_rows: null, rows_per_day: 5000, db_seconds_per_day: 1.5 });
    expect(file.connections.map((c: any) => c.name)).not.toContain('examples');
    // A draft is its newest version, marked; the published query is not.
    expect(file.queries.find((q: any) => q.name === `draft_${s}`)).toEqual({ name: `draft_${s}`, sql: 'SELECT 2 AS two', connection_name: 'examples', published: false });
    expect(file.queries.find((q: any) => q.name === `q_${s}`)).not.toHaveProperty('published');
    // Against the server it came from: nothing to change, the draft included.
    const own = await sendFile(source, 'diff', file);
    expect(own.body.changes.queries, JSON.stringify(own.body.changes)).toMatchObject({ create: [], update: [] });

    const first = await sendFile(target, 'apply', fromYaml, { yaml: true });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.warnings).toEqual([expect.objectContaining({ path: expect.stringMatching(/^connections\[\d+\]\.password$/) })]);
    const diff = await sendFile(target, 'diff', file);
    expect(diff.body.changed, JSON.stringify(diff.body.changes)).toBe(false);
    const before = (await auditEntries(target)).length;
    const second = await sendFile(target, 'apply', file);
    expect(second.body).toMatchObject({ changed: false, applied: false });
    expect((await auditEntries(target)).length).toBe(before);
    expect(await auditIntact(target)).toBe(true);

    // The draft stays one: its one version unpublished.
    const draft = await admin(target, 'GET', `/api/v1/queries/draft_${s}`);
    expect(draft.body).toMatchObject({ published_version: null, sql: 'SELECT 2 AS two' });
    // The key made from the exported hash takes the source's secret.
    const run = await target.call('GET', `/q/q_${s}?after=1`, undefined, { 'x-api-key': fromRole.secret });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    // The target exports what the source did.
    expect((await admin(target, 'GET', '/api/v1/config/export')).body).toEqual(file);
  });

  it('applies a changed draft as a new draft version, and refuses to make a published query a draft', async () => {
    const name = unique('draft');
    const entry = { name, sql: 'SELECT 1 AS one', connection_name: 'examples', published: false };
    expect((await sendFile(target, 'apply', configFile({ queries: [entry] }))).status).toBe(200);
    const changed = await sendFile(target, 'apply', configFile({ queries: [{ ...entry, sql: 'SELECT 3 AS three' }] }));
    expect(changed.body.changes.queries.update, JSON.stringify(changed.body)).toEqual([
      { name, fields: { sql: { from: 'SELECT 1 AS one', to: 'SELECT 3 AS three' }, version: { from: 1, to: 2 } } },
    ]);
    const query = (await admin(target, 'GET', `/api/v1/queries/${name}`)).body;
    expect(query).toMatchObject({ published_version: null, sql: 'SELECT 3 AS three' });
    expect(query.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);

    expect((await admin(target, 'POST', `/api/v1/queries/${name}/publish`, { version: 2 })).status).toBe(200);
    const refused = await sendFile(target, 'diff', configFile({ queries: [{ ...entry, sql: 'SELECT 3 AS three' }] }));
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'queries[0].published' })]);
  });

  it('writes only the kinds asked for, and refuses an unknown one', async () => {
    const res = await admin(source, 'GET', '/api/v1/config/export?kinds=roles,queries');
    expect(Object.keys(res.body).sort()).toEqual(['format', 'format_version', 'queries', 'roles']);
    const bad = await admin(source, 'GET', '/api/v1/config/export?kinds=widgets');
    expect(bad.status).toBe(400);
  });
});
