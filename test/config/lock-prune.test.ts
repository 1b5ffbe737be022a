import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, testFile } from '../harness/origin.ts';
import { admin, auditEntries, auditIntact, configFile, exportRoot, newSecret, sendFile, startConfigOrigin } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/** Prune deletes only managed objects, in the sections a file has; SLUICE_CONFIG_LOCKED refuses API changes to managed objects only. */

let origin: Origin;
let root: string;

beforeAll(async () => {
  root = await exportRoot();
  origin = await startConfigOrigin({ env: { SLUICE_EXPORT_DIRS: root, SLUICE_CONFIG_LOCKED: '1' } });
});

afterAll(async () => {
  await origin?.stop();
});

const duckdb = (name: string) => ({ name, db: 'duckdb', database: testFile(`${name}.duckdb`) });

describe('prune', () => {
  it('deletes only managed objects the file lacks, in the sections it has, and the audit chain verifies', async () => {
    const [kept, dropped, byApi] = [unique('kept'), unique('dropped'), unique('api')];
    const role = unique('role');
    expect((await sendFile(origin, 'apply', configFile({ connections: [duckdb(kept), duckdb(dropped)], roles: [{ name: role }] }))).status).toBe(200);
    expect((await admin(origin, 'POST', '/api/v1/connections', duckdb(byApi))).status).toBe(201);

    // Without prune, or for a section the file leaves out, nothing is deleted.
    const noPrune = await sendFile(origin, 'apply', configFile({ connections: [duckdb(kept)] }));
    expect(noPrune.body.changed).toBe(false);
    const plan = await sendFile(origin, 'diff', configFile({ connections: [duckdb(kept)] }), { prune: true });
    expect(plan.body.changes.connections.delete).toEqual([dropped]);
    expect(plan.body.changes.roles.delete).toEqual([]);

    const pruned = await sendFile(origin, 'apply', configFile({ connections: [duckdb(kept)] }), { prune: true });
    expect(pruned.status, JSON.stringify(pruned.body)).toBe(200);
    expect(pruned.body.changes.connections.delete).toEqual([dropped]);
    expect((await admin(origin, 'GET', `/api/v1/connections/${dropped}`)).status).toBe(404);
    expect((await admin(origin, 'GET', `/api/v1/connections/${byApi}`)).status).toBe(200);
    expect((await admin(origin, 'GET', `/api/v1/roles/${role}`)).status).toBe(200);
    const deleted = (await admin(origin, 'GET', '/api/v1/connections/deleted')).body;
    expect(JSON.stringify(deleted)).toContain(dropped);
    const managed = (await admin(origin, 'GET', '/api/v1/config/managed')).body.managed;
    expect(managed.connections).toContain(kept);
    expect(managed.connections).not.toContain(dropped);
    expect(await auditIntact(origin)).toBe(true);
  });

  it('keeps the refusals of the API: a destination an export uses is not deleted, and nothing is', async () => {
    const dest = unique('dest');
    const query = unique('q');
    const exp = unique('exp');
    const q = { name: query, sql: 'SELECT 1 AS one', connection_name: 'examples' };
    expect((await sendFile(origin, 'apply', configFile({ destinations: [{ name: dest, url: root }], queries: [q] }))).status).toBe(200);
    expect((await admin(origin, 'POST', '/api/v1/exports', { name: exp, query, format: 'csv', destination: dest })).status).toBe(201);
    const refused = await sendFile(origin, 'apply', configFile({ destinations: [], queries: [] }), { prune: true });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'destinations', code: 'destination_in_use' })]);
    expect((await admin(origin, 'GET', `/api/v1/queries/${query}`)).status).toBe(200);
    expect((await admin(origin, 'GET', `/api/v1/destinations/${dest}`)).status).toBe(200);
  });
});

describe('prune order', () => {
  it('deletes an export before the destination and query it names', async () => {
    // A workspace of its own: prune acts on every managed object of the workspace.
    const ws = unique('ws');
    expect((await admin(origin, 'POST', '/api/v1/workspaces', { name: ws })).status).toBe(201);
    const base = `/w/${ws}`;
    const [dest, query, exp] = [unique('dest'), unique('q'), unique('exp')];
    const conn = unique('c');
    const file = configFile({
      connections: [{ name: conn, db: 'duckdb', database: ':memory:' }],
      destinations: [{ name: dest, url: root }],
      queries: [{ name: query, sql: 'SELECT 1 AS one', connection_name: conn }],
      exports: [{ name: exp, query, format: 'csv', destination: dest }],
    });
    const first = await sendFile(origin, 'apply', file, { base });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const pruned = await sendFile(origin, 'apply', configFile({ destinations: [], queries: [], exports: [] }), { prune: true, base });
    expect(pruned.status, JSON.stringify(pruned.body)).toBe(200);
    expect(pruned.body.changes.exports.delete).toEqual([exp]);
    expect(pruned.body.changes.destinations.delete).toEqual([dest]);
    expect(pruned.body.changes.queries.delete).toEqual([query]);
    expect((await admin(origin, 'GET', `/api/v1/destinations/${dest}`)).status).toBe(404);
  });
});

describe('SLUICE_CONFIG_LOCKED', () => {
  it('answers 409 config_managed to a change of a managed key, 200 to an unmanaged one; an export still runs', async () => {
    const [managed, free] = [unique('managed'), unique('free')];
    const dest = unique('dest');
    const query = unique('q');
    const exp = unique('exp');
    const file = configFile({
      destinations: [{ name: dest, url: root }],
      queries: [{ name: query, sql: 'SELECT id, title FROM films ORDER BY id', connection_name: 'examples' }],
      api_keys: [{ name: managed, connections: ['examples'], secret_sha256: newSecret().sha256 }],
      exports: [{ name: exp, query, format: 'csv', destination: dest }],
    });
    expect((await sendFile(origin, 'apply', file)).status).toBe(200);
    expect((await admin(origin, 'POST', '/api/v1/api-keys', { name: free, connections: ['examples'] })).status).toBe(201);

    const locked = await admin(origin, 'PATCH', `/api/v1/api-keys/${managed}`, { max_rows: 5 });
    expect(locked.status).toBe(409);
    expect(locked.body.code).toBe('config_managed');
    expect((await admin(origin, 'POST', `/api/v1/api-keys/${managed}/rotate`, {})).status).toBe(409);
    expect((await admin(origin, 'DELETE', `/api/v1/api-keys/${managed}`)).status).toBe(409);
    expect((await admin(origin, 'PATCH', `/api/v1/api-keys/${free}`, { max_rows: 5 })).status).toBe(200);
    expect((await admin(origin, 'POST', `/api/v1/queries/${query}/versions`, { sql: 'SELECT 2 AS two', publish: true })).status).toBe(409);
    expect((await admin(origin, 'PATCH', '/api/v1/collections/anything', { name: 'other' })).status).not.toBe(409);

    const run = await admin(origin, 'POST', `/api/v1/exports/${exp}/runs`);
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    expect(run.body.rows).toBeGreaterThan(0);

    // The file still changes what it manages.
    const changed = await sendFile(origin, 'apply', { ...file, api_keys: [{ ...file.api_keys[0], max_rows: 5 }] });
    expect(changed.body.changes.api_keys.update).toEqual([{ name: managed, fields: { max_rows: { from: null, to: 5 } } }]);
    expect((await admin(origin, 'GET', '/api/v1/config/managed')).body.locked).toBe(true);
    const actions = (await auditEntries(origin)).map((e) => e.action);
    expect(actions.at(-1)).toBe('config_applied');
  });
});
