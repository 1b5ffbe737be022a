import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, testFile } from '../harness/origin.ts';
import { admin, auditEntries, configFile, sendFile, startConfigOrigin } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/**
 * The `descriptions` section (keyed by connection) and the examples in a
 * configuration file: applied through the descriptions verb, pruned item by
 * item for a connection the file lists, exported; the examples' objects only
 * with `examples=true`.
 */

let origin: Origin;

beforeAll(async () => {
  origin = await startConfigOrigin({ edge: false });
});

afterAll(async () => {
  await origin?.stop();
});

const descriptionsOf = async (connection: string) => (await admin(origin, 'GET', `/api/v1/connections/${connection}/descriptions`)).body;

describe('the descriptions section', () => {
  it('sets the items and notes listed, shows them in the plan, and prunes only items a listed connection lacks', async () => {
    const conn = unique('dc');
    const other = unique('dc');
    const connections = [
      { name: conn, db: 'duckdb', database: testFile(`${conn}.duckdb`) },
      { name: other, db: 'duckdb', database: testFile(`${other}.duckdb`) },
    ];
    const file = configFile({
      connections,
      descriptions: {
        [conn]: { notes: 'Copied nightly', items: [{ table: 'orders', description: 'One row per order' }, { table: 'orders', column: 'total', description: 'In euros' }] },
        [other]: { items: [{ table: 'kept', description: 'Stays' }] },
      },
    });
    const diff = await sendFile(origin, 'diff', file);
    expect(diff.status, JSON.stringify(diff.body)).toBe(200);
    expect(diff.body.changes.descriptions.update).toEqual(
      expect.arrayContaining([
        {
          name: conn,
          fields: { orders: { from: null, to: 'One row per order' }, 'orders.total': { from: null, to: 'In euros' }, notes: { from: null, to: 'Copied nightly' } },
        },
      ]),
    );
    expect((await sendFile(origin, 'apply', file)).body.applied).toBe(true);
    expect(await descriptionsOf(conn)).toEqual({
      connection: conn,
      notes: 'Copied nightly',
      items: [
        { table: 'orders', column: null, description: 'One row per order' },
        { table: 'orders', column: 'total', description: 'In euros' },
      ],
    });
    const entries = (await auditEntries(origin)).filter((e) => e.action === 'update_descriptions' && e.target === conn);
    expect(entries).toHaveLength(1);
    expect(entries[0].changes.via).toBe('config');

    // Applied again: nothing changes.
    expect((await sendFile(origin, 'apply', file)).body.changed).toBe(false);

    // An item added through the API: a file without it leaves it, unless pruned; the connection the file no longer lists keeps its own.
    await admin(origin, 'PATCH', `/api/v1/connections/${conn}/descriptions`, { items: [{ table: 'extra', description: 'Made by hand' }] });
    const fewer = configFile({ connections, descriptions: { [conn]: { items: [{ table: 'orders', description: 'One row per order' }] } } });
    await sendFile(origin, 'apply', fewer);
    expect((await descriptionsOf(conn)).items).toHaveLength(3);
    const pruned = await sendFile(origin, 'apply', fewer, { prune: true });
    expect(pruned.status, JSON.stringify(pruned.body)).toBe(200);
    expect(await descriptionsOf(conn)).toEqual({ connection: conn, notes: 'Copied nightly', items: [{ table: 'orders', column: null, description: 'One row per order' }] });
    expect((await descriptionsOf(other)).items).toEqual([{ table: 'kept', column: null, description: 'Stays' }]);

    // Exported keyed by connection.
    const exported = (await admin(origin, 'GET', '/api/v1/config/export?kinds=descriptions')).body;
    expect(exported.descriptions[conn]).toEqual({ notes: 'Copied nightly', items: [{ table: 'orders', description: 'One row per order' }] });
  });

  it('names a connection that does not exist by its place in the file', async () => {
    const missing = unique('nope');
    const res = await sendFile(origin, 'apply', configFile({ descriptions: { [missing]: { items: [{ table: 't', description: 'x' }] } } }));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: `descriptions.${missing}`, message: expect.stringContaining(missing), code: 'connection_not_found' }]);
  });
});

describe('under SLUICE_CONFIG_LOCKED', () => {
  it('refuses PATCH and import of descriptions a file manages with 409 config_managed', async () => {
    const locked = await startConfigOrigin({ edge: false, env: { SLUICE_CONFIG_LOCKED: '1' } });
    try {
      const conn = unique('lk');
      const file = configFile({ connections: [{ name: conn, db: 'duckdb', database: testFile(`${conn}.duckdb`) }], descriptions: { [conn]: { items: [{ table: 't', description: 'x' }] } } });
      expect((await sendFile(locked, 'apply', file)).status).toBe(200);
      const patch = await admin(locked, 'PATCH', `/api/v1/connections/${conn}/descriptions`, { items: [{ table: 't', description: 'y' }] });
      expect(patch.status).toBe(409);
      expect(patch.body.code).toBe('config_managed');
      expect((await admin(locked, 'POST', `/api/v1/connections/${conn}/descriptions/import`)).body.code).toBe('config_managed');
      expect((await admin(locked, 'GET', `/api/v1/connections/${conn}/descriptions`)).body.items).toEqual([{ table: 't', column: null, description: 'x' }]);
    } finally {
      await locked.stop();
    }
  });
});

describe('config export and the examples', () => {
  it('leaves the examples out unless asked for, and includes them all with examples=true', async () => {
    expect((await admin(origin, 'POST', '/api/v1/examples')).status).toBe(200);
    await admin(origin, 'POST', '/api/v1/connections/examples/descriptions/import');
    const names = (file: any, kind: string) => (file[kind] ?? []).map((entry: { name: string }) => entry.name);

    const without = (await admin(origin, 'GET', '/api/v1/config/export')).body;
    expect(names(without, 'connections')).not.toContain('examples');
    expect(names(without, 'queries').filter((n: string) => n.startsWith('example_'))).toEqual([]);
    expect(names(without, 'roles')).not.toContain('example_reader');
    expect(names(without, 'api_keys').filter((n: string) => n.startsWith('example_'))).toEqual([]);
    expect(Object.keys(without.descriptions)).not.toContain('examples');

    const withExamples = (await admin(origin, 'GET', '/api/v1/config/export?examples=true')).body;
    expect(names(withExamples, 'connections')).toContain('examples');
    expect(names(withExamples, 'queries')).toEqual(expect.arrayContaining(['example_films_by_rating', 'example_top_films']));
    expect(withExamples.queries.find((q: any) => q.name === 'example_top_films')).toMatchObject({ collection: 'example-catalogue', cache_ttl: 300 });
    expect(names(withExamples, 'roles')).toContain('example_reader');
    expect(names(withExamples, 'api_keys')).toEqual(expect.arrayContaining(['example_catalogue_key', 'example_rentals_key']));
    expect(withExamples.descriptions.examples.items.length).toBeGreaterThan(40);
  });
});
