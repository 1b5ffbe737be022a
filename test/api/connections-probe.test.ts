import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { MY, PG, duckdbExec, myExec, pgExec, sqliteExec, tempDir } from './connections-fixtures.ts';
import { unique } from '../harness/unique.ts';

/**
 * Connections against the real databases: test, databases, schema (and its
 * truncation), table_ddl, `${VAR}` passwords expanded at connect time,
 * relative file paths, inactive connections.
 */

const API = '/api/v1/connections';
const at = (name: string) => `${API}/${encodeURIComponent(name)}`;
const publicAt = (name: string) => `/connections/${encodeURIComponent(name)}`;

const pgTable = unique('sluice_conn_pg');
const myTable = unique('sluice_conn_my');
const myUser = unique('sluice_u');
const MY_RIGHT = unique('Right-Pw');
const MY_WRONG = unique('Wrong-Pw');
const liteTable = unique('lite_t');
const duckTable = unique('duck_t');
const relFile = `${unique('rel')}.sqlite`;

let origin: Origin;
let tmp: Awaited<ReturnType<typeof tempDir>>;
let liteFile: string;
let duckFile: string;
let wideFile: string;
let exactFile: string;

beforeAll(async () => {
  tmp = await tempDir();
  liteFile = join(tmp.dir, 'lite.sqlite');
  duckFile = join(tmp.dir, 'duck.duckdb');
  wideFile = join(tmp.dir, 'wide.sqlite');
  exactFile = join(tmp.dir, 'exact.sqlite');
  await pgExec(`create table ${pgTable} (id integer primary key, label text not null, note varchar(20))`);
  await myExec(
    `create table test.${myTable} (id int primary key, label varchar(50) not null)`,
    `create user '${myUser}'@'%' identified by '${MY_RIGHT}'`,
    `grant select on test.* to '${myUser}'@'%'`,
  );
  sqliteExec(liteFile, `create table ${liteTable} (id integer primary key, name text not null, score real)`, `create view ${liteTable}_v as select id from ${liteTable}`);
  await duckdbExec(duckFile, `create table ${duckTable} (id integer, amount decimal(10,2), seen_at timestamp)`);
  const wideColumns = Array.from({ length: 500 }, (_, i) => `c${i} integer`).join(', ');
  sqliteExec(wideFile, ...Array.from({ length: 11 }, (_, t) => `create table wide_${t} (${wideColumns})`));
  sqliteExec(exactFile, ...Array.from({ length: 10 }, (_, t) => `create table wide_${t} (${wideColumns})`));
  origin = await startOrigin({
    env: { SLUICE_REF_T_MYSQL_RIGHT: MY_RIGHT, SLUICE_REF_T_MYSQL_WRONG: MY_WRONG },
  });
  sqliteExec(join(origin.dataDir, relFile), 'create table rel_table (x integer)');
  sqliteExec(join(tmp.dir, 'other.sqlite'), 'create table rel_table (x integer)');
});

afterAll(async () => {
  await origin?.stop();
  await pgExec(`drop table if exists ${pgTable}`).catch(() => {});
  await myExec(`drop table if exists test.${myTable}`, `drop user if exists '${myUser}'@'%'`).catch(() => {});
  await tmp?.remove();
});

async function create(body: Record<string, unknown>) {
  const res = await origin.call('POST', API, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const pgFields = (extra: Record<string, unknown> = {}) => ({ db: 'postgres', host: PG.host, port: PG.port, user: PG.user, database: PG.database, ...extra });
const myFields = (extra: Record<string, unknown> = {}) => ({ db: 'mysql', host: MY.host, port: MY.port, user: 'root', database: MY.database, ...extra });

function tableNamed(listing: any, name: string) {
  return listing.tables.find((t: any) => t.name === name || t.name.endsWith(`.${name}`));
}

describe('test', () => {
  it('tests saved connections of every type', async () => {
    for (const fields of [pgFields(), myFields(), { db: 'sqlite', database: liteFile }, { db: 'duckdb', database: duckFile }, { db: 'duckdb' }]) {
      const name = unique('saved');
      await create({ name, ...fields });
      const res = await origin.call('POST', `${API}/test`, { name });
      expect(res.status, `${fields.db}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.ok).toBe(true);
      expect(typeof res.body.duration_ms).toBe('number');
    }
  });

  it('tests unsaved fields and saves nothing', async () => {
    const name = unique('unsaved');
    const res = await origin.call('POST', `${API}/test`, { name, ...pgFields() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ ok: true });
    expect((await origin.call('POST', `${API}/test`, myFields())).status).toBe(200);
    expect((await origin.call('GET', at(name))).status).toBe(404);
  });

  it('answers 502 connection_failed with a detail that never shows the password', async () => {
    const password = unique('Unreachable-Secret');
    const res = await origin.fetch(`${API}/test`, {
      method: 'POST',
      json: pgFields({ port: 1, password }),
    });
    expect(res.status).toBe(502);
    const text = await res.text();
    expect(text).not.toContain(password);
    const body = JSON.parse(text);
    expect(body.code).toBe('connection_failed');
    expect(typeof body.detail).toBe('string');
    expect(body.detail.length).toBeGreaterThan(0);

    // Refused credentials: the message is the database's, the password still hidden.
    const denied = await origin.fetch(`${API}/test`, { method: 'POST', json: myFields({ user: myUser, password }) });
    expect(denied.status).toBe(502);
    const deniedText = await denied.text();
    expect(deniedText).not.toContain(password);
    expect(JSON.parse(deniedText).detail).toMatch(/denied/i);

    const name = unique('down');
    await create({ name, ...pgFields({ port: 1, password }) });
    const saved = await origin.fetch(`${API}/test`, { method: 'POST', json: { name } });
    expect(saved.status).toBe(502);
    expect(await saved.text()).not.toContain(password);
  });

  it('refuses bodies that are neither kind', async () => {
    expect((await origin.call('POST', `${API}/test`, {})).status).toBe(400);
    expect((await origin.call('POST', `${API}/test`, { name: 'x', host: 'y' })).status).toBe(400);
    expect((await origin.call('POST', `${API}/test`, { ...pgFields(), extra: 1 })).body.code).toBe('unknown_field');
    expect((await origin.call('POST', `${API}/test`, { name: unique('nope') })).body.code).toBe('connection_not_found');
    expect((await origin.call('POST', `${API}/test`, { db: 'postgres' })).status).toBe(400);
  });
});

describe('passwords from the environment', () => {
  it('expands ${VAR} at connect time: the right value connects, a wrong one is refused', async () => {
    const right = unique('envright');
    const created = await create({ name: right, ...myFields({ user: myUser, password: '${SLUICE_REF_T_MYSQL_RIGHT}' }) });
    expect(created.password).toBe('${SLUICE_REF_T_MYSQL_RIGHT}');
    expect((await origin.call('POST', `${API}/test`, { name: right })).status).toBe(200);
    const schema = await origin.call('GET', `${at(right)}/schema`);
    expect(schema.status).toBe(200);
    expect(tableNamed(schema.body, myTable)).toBeTruthy();

    const wrong = unique('envwrong');
    await create({ name: wrong, ...myFields({ user: myUser, password: '${SLUICE_REF_T_MYSQL_WRONG}' }) });
    const failed = await origin.fetch(`${API}/test`, { method: 'POST', json: { name: wrong } });
    expect(failed.status).toBe(502);
    expect(await failed.text()).not.toContain(MY_WRONG);

    // Changing the reference to the right variable takes effect on the next use.
    expect((await origin.call('PATCH', at(wrong), { password: '${SLUICE_REF_T_MYSQL_RIGHT}' })).status).toBe(200);
    expect((await origin.call('POST', `${API}/test`, { name: wrong })).status).toBe(200);

    // A literal works the same; and unsaved fields expand references too.
    expect((await origin.call('POST', `${API}/test`, myFields({ user: myUser, password: MY_RIGHT }))).status).toBe(200);
    expect((await origin.call('POST', `${API}/test`, myFields({ user: myUser, password: '${SLUICE_REF_T_MYSQL_RIGHT}' }))).status).toBe(200);
  });

  it('names an unset variable clearly', async () => {
    const name = unique('envunset');
    await create({ name, ...myFields({ user: myUser, password: '${SLUICE_REF_T_NOT_SET}' }) });
    const res = await origin.call('POST', `${API}/test`, { name });
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('connection_failed');
    expect(`${res.body.error} ${res.body.detail}`).toContain('SLUICE_REF_T_NOT_SET');
    const unsaved = await origin.call('POST', `${API}/test`, myFields({ user: myUser, password: '${SLUICE_REF_T_NOT_SET}' }));
    expect(unsaved.status).toBe(502);
    expect(unsaved.body.error).toContain('${SLUICE_REF_T_NOT_SET}');
    const schema = await origin.call('GET', `${publicAt(name)}/schema`);
    expect(schema.status).toBe(502);
    expect(schema.body.error).toContain('SLUICE_REF_T_NOT_SET');
  });
});

describe('databases', () => {
  it('lists databases of saved and unsaved connections', async () => {
    const name = unique('dbs');
    await create({ name, ...pgFields() });
    const saved = await origin.call('POST', `${API}/databases`, { name });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.databases).toContain('test');
    const unsaved = await origin.call('POST', `${API}/databases`, myFields());
    expect(unsaved.status, JSON.stringify(unsaved.body)).toBe(200);
    expect(unsaved.body.databases).toContain('test');
    const lite = await origin.call('POST', `${API}/databases`, { db: 'sqlite', database: liteFile });
    expect(lite.status, JSON.stringify(lite.body)).toBe(200);
    expect(Array.isArray(lite.body.databases)).toBe(true);
    const down = await origin.call('POST', `${API}/databases`, pgFields({ port: 1, password: 'hidden-pw-1' }));
    expect(down.status).toBe(502);
    expect(JSON.stringify(down.body)).not.toContain('hidden-pw-1');
  });
});

describe('schema', () => {
  const columnsOf = (table: any) => table.columns.map((c: any) => c.name);

  it('lists tables and columns of postgres, mysql, sqlite and duckdb', async () => {
    const pg = unique('spg');
    await create({ name: pg, ...pgFields() });
    const pgRes = await origin.call('GET', `${at(pg)}/schema`);
    expect(pgRes.status, JSON.stringify(pgRes.body)).toBe(200);
    expect(pgRes.body.truncated).toBe(false);
    const pgT = tableNamed(pgRes.body, pgTable);
    expect(columnsOf(pgT)).toEqual(['id', 'label', 'note']);
    expect(pgT.columns[1]).toMatchObject({ name: 'label', nullable: false, position: 2 });
    expect(pgT.columns[2]).toMatchObject({ name: 'note', nullable: true, position: 3 });
    expect(typeof pgT.type).toBe('string');

    const my = unique('smy');
    await create({ name: my, ...myFields() });
    const myRes = await origin.call('GET', `${at(my)}/schema`);
    expect(myRes.status, JSON.stringify(myRes.body)).toBe(200);
    expect(columnsOf(tableNamed(myRes.body, myTable))).toEqual(['id', 'label']);

    const lite = unique('slite');
    await create({ name: lite, db: 'sqlite', database: liteFile });
    const liteRes = await origin.call('GET', `${at(lite)}/schema`);
    expect(liteRes.status, JSON.stringify(liteRes.body)).toBe(200);
    expect(columnsOf(tableNamed(liteRes.body, liteTable))).toEqual(['id', 'name', 'score']);
    expect(tableNamed(liteRes.body, `${liteTable}_v`)).toBeTruthy();

    const duck = unique('sduck');
    await create({ name: duck, db: 'duckdb', database: duckFile });
    const duckRes = await origin.call('GET', `${at(duck)}/schema`);
    expect(duckRes.status, JSON.stringify(duckRes.body)).toBe(200);
    expect(columnsOf(tableNamed(duckRes.body, duckTable))).toEqual(['id', 'amount', 'seen_at']);

    // The kept public route answers the same tables and columns, without
    // the v1 listing's descriptions and notes.
    const pub = await origin.call('GET', `${publicAt(lite)}/schema`);
    expect(pub.status).toBe(200);
    type Described = { description?: unknown; columns: Array<{ description?: unknown }> };
    const undescribed = liteRes.body.tables.map(({ description, columns, ...table }: Described) => ({
      ...table,
      columns: columns.map(({ description: _, ...column }) => column),
    }));
    expect(liteRes.body.notes).toBeNull();
    expect(pub.body).toEqual({ tables: undescribed, truncated: liteRes.body.truncated });
  });

  it('reads another database of the server with ?database=', async () => {
    const name = unique('sother');
    await create({ name, ...myFields({ database: null }) });
    const res = await origin.call('GET', `${at(name)}/schema?database=test`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(tableNamed(res.body, myTable)).toBeTruthy();
  });

  it('is cut off past 5000 columns in all, with truncated: true', async () => {
    const wide = unique('wide');
    await create({ name: wide, db: 'sqlite', database: wideFile });
    const res = await origin.call('GET', `${at(wide)}/schema`);
    expect(res.status).toBe(200);
    expect(res.body.truncated).toBe(true);
    const total = res.body.tables.reduce((n: number, t: any) => n + t.columns.length, 0);
    expect(total).toBeLessThanOrEqual(5000);
    expect(total).toBeGreaterThan(4000);

    const exact = unique('exact');
    await create({ name: exact, db: 'sqlite', database: exactFile });
    const full = await origin.call('GET', `${at(exact)}/schema`);
    expect(full.body.truncated).toBe(false);
    expect(full.body.tables.reduce((n: number, t: any) => n + t.columns.length, 0)).toBe(5000);
  });

  it('refuses a relative sqlite path: it resolves into the data dir, where no connection may point', async () => {
    const res = await origin.call('POST', API, { name: unique('rel'), db: 'sqlite', database: relFile });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.code).toBe('file_not_allowed');
    expect(res.body.error).toContain('SLUICE_DATA_DIR');
  });

  it('answers 404 for an unknown connection in either family shape', async () => {
    const name = unique('nope');
    const managed = await origin.call('GET', `${at(name)}/schema`);
    expect(managed.status).toBe(404);
    expect(managed.body.code).toBe('connection_not_found');
    const pub = await origin.call('GET', `${publicAt(name)}/schema`);
    expect(pub.status).toBe(404);
    expect(pub.body.error).toContain(name);
    expect(pub.body.code).toBeUndefined();
  });
});

describe('table_ddl', () => {
  it('returns {connection, table, ddl}', async () => {
    const lite = unique('ddl');
    await create({ name: lite, db: 'sqlite', database: liteFile });
    const res = await origin.call('GET', `${publicAt(lite)}/table_ddl?table=${liteTable}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.connection).toBe(lite);
    expect(res.body.table).toBe(liteTable);
    expect(res.body.ddl).toMatch(/create table/i);
    expect(res.body.ddl).toContain(liteTable);

    const pg = unique('ddlpg');
    await create({ name: pg, ...pgFields() });
    const pgRes = await origin.call('GET', `${publicAt(pg)}/table_ddl?table=${pgTable}`);
    expect(pgRes.status, JSON.stringify(pgRes.body)).toBe(200);
    expect(pgRes.body.ddl).toContain(pgTable);
    expect(pgRes.body.ddl).toContain('label');
  });

  it('needs the table parameter', async () => {
    const lite = unique('ddlq');
    await create({ name: lite, db: 'sqlite', database: liteFile });
    const res = await origin.call('GET', `${publicAt(lite)}/table_ddl`);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('table');
    expect(res.body.code).toBeUndefined();
  });
});

describe('inactive connections', () => {
  it('show as inactive and give 403 on use until activated', async () => {
    const name = unique('off');
    const created = await create({ name, db: 'sqlite', database: liteFile, active: false });
    expect(created.active).toBe(false);
    const listed = (await origin.call('GET', API)).body.connections.find((c: any) => c.name === name);
    expect(listed.active).toBe(false);

    for (const path of [`${publicAt(name)}/schema`, `${publicAt(name)}/table_ddl?table=${liteTable}`]) {
      const res = await origin.call('GET', path);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatch(/inactive/);
      expect(res.body.code).toBeUndefined();
    }
    // An administrator can still inspect and test it before switching it on.
    expect((await origin.call('GET', `${at(name)}/schema`)).status).toBe(200);
    expect((await origin.call('POST', `${API}/test`, { name })).status).toBe(200);

    expect((await origin.call('PATCH', at(name), { active: true })).body.active).toBe(true);
    expect((await origin.call('GET', `${publicAt(name)}/schema`)).status).toBe(200);
  });
});

describe('changes reach the driver', () => {
  it('uses the new settings after a PATCH', async () => {
    const name = unique('switch');
    await create({ name, db: 'sqlite', database: liteFile });
    expect(tableNamed((await origin.call('GET', `${at(name)}/schema`)).body, liteTable)).toBeTruthy();
    expect((await origin.call('PATCH', at(name), { database: join(tmp.dir, 'other.sqlite') })).status).toBe(200);
    const after = (await origin.call('GET', `${at(name)}/schema`)).body;
    expect(tableNamed(after, liteTable)).toBeFalsy();
    expect(tableNamed(after, 'rel_table')).toBeTruthy();
  });
});
