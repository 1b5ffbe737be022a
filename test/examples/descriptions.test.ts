import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { MY, PG, duckdbExec, myExec, pgExec, sqliteExec, tempDir } from '../api/connections-fixtures.ts';
import { unique } from '../harness/unique.ts';

/**
 * Descriptions per connection: imported from the database's own comments on
 * tables the test makes (PostgreSQL, MariaDB, DuckDB; SQLite keeps none),
 * merged into the v1 schema listing, changed and removed by PATCH, audited;
 * and the deprecated kept schema route.
 */

const KEY = 'descriptions-admin-key-0123456789';
const admin = { 'x-api-key': KEY };
let origin: Origin;
let tmp: Awaited<ReturnType<typeof tempDir>>;
const table = unique('described');
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  tmp = await tempDir();
  origin = await startOrigin({ edge: false, env: { SLUICE_API_KEY: KEY } });
});

afterAll(async () => {
  await origin?.stop();
  await Promise.all(cleanups.map((clean) => clean().catch(() => {})));
  await tmp?.remove();
});

async function connect(body: Record<string, unknown>): Promise<string> {
  const name = unique('conn');
  const made = await origin.call('POST', '/api/v1/connections', { name, ...body }, admin);
  expect(made.status).toBe(201);
  return name;
}

const schemaOf = async (connection: string) => (await origin.call('GET', `/api/v1/connections/${connection}/schema`, undefined, admin)).body;
const tableIn = (schema: { tables: Array<{ name: string }> }, name: string) => schema.tables.find((t) => t.name === name) as any;

/** Imports, checks the v1 listing shows the comments, then removes one by PATCH. */
async function importAndRemove(connection: string, tableName: string) {
  const imported = await origin.call('POST', `/api/v1/connections/${connection}/descriptions/import`, undefined, admin);
  expect(imported.status).toBe(200);
  expect(imported.body.items).toEqual(
    expect.arrayContaining([
      { table: tableName, column: null, description: 'Orders placed in the shop' },
      { table: tableName, column: 'total', description: 'Order total, in euros' },
    ]),
  );
  expect(imported.body.items.find((i: any) => i.table === tableName && i.column === 'id')).toBeUndefined();

  const listed = tableIn(await schemaOf(connection), tableName);
  expect(listed.description).toBe('Orders placed in the shop');
  expect(listed.columns.find((c: any) => c.name === 'total').description).toBe('Order total, in euros');
  expect(listed.columns.find((c: any) => c.name === 'id').description).toBeNull();

  const patched = await origin.call('PATCH', `/api/v1/connections/${connection}/descriptions`, { items: [{ table: tableName, column: 'total', description: '' }] }, admin);
  expect(patched.status).toBe(200);
  expect(patched.body.items.filter((i: any) => i.table === tableName)).toEqual([{ table: tableName, column: null, description: 'Orders placed in the shop' }]);
  const after = tableIn(await schemaOf(connection), tableName);
  expect(after.columns.find((c: any) => c.name === 'total').description).toBeNull();
  expect(after.description).toBe('Orders placed in the shop');
}

describe('importing comments', () => {
  it('from PostgreSQL COMMENT ON', async () => {
    await pgExec(
      `create table ${table} (id int primary key, total numeric(8,2))`,
      `comment on table ${table} is 'Orders placed in the shop'`,
      `comment on column ${table}.total is 'Order total, in euros'`,
    );
    cleanups.push(() => pgExec(`drop table if exists ${table}`));
    await importAndRemove(await connect({ db: 'postgres', ...PG }), table);
  });

  it('from MariaDB table and column comments', async () => {
    await myExec(`create table ${table} (id int primary key, total decimal(8,2) comment 'Order total, in euros') comment = 'Orders placed in the shop'`);
    cleanups.push(() => myExec(`drop table if exists ${table}`));
    await importAndRemove(await connect({ db: 'mysql', ...MY }), table);
  });

  it('from DuckDB COMMENT ON', async () => {
    const file = join(tmp.dir, 'described.duckdb');
    await duckdbExec(
      file,
      `create table ${table} (id integer primary key, total decimal(8,2))`,
      `comment on table ${table} is 'Orders placed in the shop'`,
      `comment on column ${table}.total is 'Order total, in euros'`,
    );
    await importAndRemove(await connect({ db: 'duckdb', database: file }), table);
  });

  it('of the bundled dataset, whose every table and column has one', async () => {
    const imported = await origin.call('POST', '/api/v1/connections/examples/descriptions/import', undefined, admin);
    expect(imported.status).toBe(200);
    expect(imported.body.found).toBeGreaterThan(40);
    const films = tableIn(await schemaOf('examples'), 'films');
    expect(films.description).toBe('The catalogue: one row per film that can be (or will be) rented.');
    for (const column of films.columns) expect(column.description).toEqual(expect.any(String));
    // A second import finds the same comments and changes nothing.
    const again = await origin.call('POST', '/api/v1/connections/examples/descriptions/import', undefined, admin);
    expect(again.body.changed).toEqual([]);
  });

  it('from SQLite, which keeps none, is refused saying so', async () => {
    const file = join(tmp.dir, 'plain.sqlite');
    sqliteExec(file, 'create table t (id integer primary key)');
    const connection = await connect({ db: 'sqlite', database: file });
    const refused = await origin.call('POST', `/api/v1/connections/${connection}/descriptions/import`, undefined, admin);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('invalid_request');
    expect(refused.body.error).toContain('keeps no comments');
  });
});

describe('descriptions and notes by hand', () => {
  it('PATCH changes only the items it lists, notes show in the listing, and each change is audited', async () => {
    const file = join(tmp.dir, 'by-hand.duckdb');
    await duckdbExec(file, 'create table a (x integer)');
    const connection = await connect({ db: 'duckdb', database: file });
    const first = await origin.call(
      'PATCH',
      `/api/v1/connections/${connection}/descriptions`,
      { items: [{ table: 'a', description: 'Table a' }, { table: 'a', column: 'x', description: 'Column x' }], notes: 'Nightly copy of production' },
      admin,
    );
    expect(first.body).toEqual({
      connection,
      notes: 'Nightly copy of production',
      items: [
        { table: 'a', column: null, description: 'Table a' },
        { table: 'a', column: 'x', description: 'Column x' },
      ],
    });
    const second = await origin.call('PATCH', `/api/v1/connections/${connection}/descriptions`, { items: [{ table: 'a', column: 'x', description: 'Column x, renamed' }] }, admin);
    expect(second.body.items).toEqual([
      { table: 'a', column: null, description: 'Table a' },
      { table: 'a', column: 'x', description: 'Column x, renamed' },
    ]);
    expect(second.body.notes).toBe('Nightly copy of production');
    expect((await schemaOf(connection)).notes).toBe('Nightly copy of production');

    // They go with their connection: one made again under the name starts with none.
    const rows = await origin.call('DELETE', `/api/v1/connections/${connection}`, { reason: 'test' }, admin);
    expect(rows.status).toBe(200);
    expect((await origin.call('POST', '/api/v1/connections', { name: connection, db: 'duckdb', database: file }, admin)).status).toBe(201);
    expect((await origin.call('GET', `/api/v1/connections/${connection}/descriptions`, undefined, admin)).body).toEqual({ connection, notes: null, items: [] });

    const unknown = await origin.call('PATCH', `/api/v1/connections/${connection}/descriptions`, { items: [{ table: 'a', text: 'x' }] }, admin);
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('unknown_field');

    const audit = (await origin.call('GET', `/api/v1/audit?action=update_descriptions&target=${connection}`, undefined, admin)).body.items;
    expect(audit).toHaveLength(2);
    expect(audit[0].changes.items).toEqual([{ table: 'a', column: 'x', from: 'Column x', to: 'Column x, renamed' }]);
    expect(audit[1].changes.notes).toEqual({ from: null, to: 'Nightly copy of production' });
  });
});

describe("a saved query's columns", () => {
  it('are described in /catalog and /openapi.json from the connection descriptions of the columns they read', async () => {
    await origin.call('POST', '/api/v1/connections/examples/descriptions/import', undefined, admin);
    const name = unique('described_q');
    const made = await origin.call(
      'POST',
      '/api/v1/queries',
      {
        name,
        sql: 'select f.title, f.price as cost, count(*) as rentals from films f join rentals r on r.film_id = f.id group by f.title, f.price',
        connection_name: 'examples',
        publish: true,
      },
      admin,
    );
    expect(made.status).toBe(201);
    const catalog = (await origin.call('GET', '/catalog', undefined, admin)).body;
    expect(catalog.queries.find((q: any) => q.name === name).columns).toEqual([
      { name: 'title', description: 'Title as released; may contain quotes, commas, accents, CJK, Arabic or emoji.' },
      { name: 'cost', description: 'Rental price in euros, exact to the cent.' },
      { name: 'rentals', description: null },
    ]);
    const doc = (await origin.call('GET', '/openapi.json', undefined, admin)).body;
    expect(doc.paths[`/q/${name}`].get.description).toContain('Columns:\n- `title`: Title as released;');
    expect(doc.paths[`/q/${name}`].get.description).toContain('- `cost`: Rental price in euros, exact to the cent.');
  });
});

describe('the kept schema route', () => {
  it('answers with Deprecation and a Link to its successor, and is deprecated in /openapi.json; table_ddl is not', async () => {
    const res = await origin.fetch('/connections/examples/schema', { headers: admin });
    expect(res.status).toBe(200);
    expect(res.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(res.headers.get('link')).toBe('</api/v1/connections/examples/schema>; rel="successor-version"');
    const body = await res.json();
    expect(body.tables.length).toBeGreaterThan(0);

    const ddl = await origin.fetch('/connections/examples/table_ddl?table=films', { headers: admin });
    expect(ddl.status).toBe(200);
    expect(ddl.headers.get('deprecation')).toBeNull();

    const doc = (await origin.call('GET', '/openapi.json', undefined, admin)).body;
    expect(doc.paths['/connections/{name}/schema'].get.deprecated).toBe(true);
    expect(doc.paths['/connections/{name}/table_ddl'].get.deprecated).toBeUndefined();
    expect(doc.paths['/api/v1/connections/{name}/schema'].get.deprecated).toBeUndefined();
    expect(Object.keys(doc.paths['/api/v1/connections/{name}/descriptions'])).toEqual(['get', 'patch']);
    expect(Object.keys(doc.paths['/api/v1/examples'])).toEqual(['get', 'post', 'delete']);
  });
});
