import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin, templateDir } from '../harness/origin.ts';
import { sqliteExec } from '../api/connections-fixtures.ts';
import { ADMIN_KEY, type Reply, adminWithToken, asAdmin, bearer, expectStatus } from './fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';

/**
 * The files a connection names (SQLite and DuckDB databases, DuckDB
 * `options.files`, H2 URLs, JDBC jars) lie inside SLUICE_FILE_DIRS, never in
 * the data directory, and no workspace's connection uses a file of another
 * workspace's (docs/reference/connections.md#files). The origin's data
 * directory lies inside the allowed folder, so the data-directory rule is
 * what refuses it.
 */

let origin: Origin;
let root: string;
let allowed: string;
let outside: string;
let dataDir: string;
let ownerToken: string;
let ws2File: string;
const WS1 = unique('files1');
const WS2 = unique('files2');

const asOwner = (method: string, path: string, body?: unknown): Promise<Reply> => origin.call(method, path, body, bearer(ownerToken));
const IN1 = `/w/${WS1}/api/v1`;

beforeAll(async () => {
  root = realpathSync(await mkdtemp(join(tmpdir(), 'sluice-files-')));
  allowed = join(root, 'allowed');
  outside = join(root, 'outside');
  dataDir = join(allowed, 'data');
  await mkdir(outside, { recursive: true });
  await mkdir(allowed, { recursive: true });
  await cp(templateDir(), dataDir, { recursive: true });
  ws2File = join(allowed, 'ws2.sqlite');
  sqliteExec(ws2File, 'create table secrets (v text)', "insert into secrets values ('ws2 only')");
  sqliteExec(join(allowed, 'ws1.sqlite'), 'create table mine (v text)', "insert into mine values ('ws1')");
  sqliteExec(join(outside, 'out.sqlite'), 'create table t (v text)');
  await symlink(ws2File, join(allowed, 'link-to-ws2.sqlite'));
  await writeFile(join(outside, 'evil.jar'), 'not a jar');
  origin = await startOrigin({ dataDir, env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_FILE_DIRS: allowed } });
  for (const ws of [WS1, WS2]) expectStatus(await asAdmin(origin, 'POST', '/api/v1/workspaces', { name: ws }), 201);
  expectStatus(await asAdmin(origin, 'POST', `/w/${WS2}/api/v1/connections`, { name: unique('ws2lite'), db: 'sqlite', database: ws2File }), 201);
  const owner = unique('files-owner');
  ownerToken = await adminWithToken(origin, owner, null);
  expectStatus(await asAdmin(origin, 'PUT', `/api/v1/workspaces/${WS1}/members/${owner}`, { role: 'owner' }), 201);
});

afterAll(async () => {
  await origin?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

/** 400 `file_not_allowed`, naming the field and the setting to change. */
function expectRefused(res: Reply, field: string, words: string): void {
  expectError(res, 400, 'file_not_allowed');
  expect(res.body.error).toContain(words);
  expect(Object.keys(res.body.errors)).toEqual([field]);
}

describe('files of connections', () => {
  it("refuses a workspace owner's connection on another workspace's file, however the path is spelled (409)", async () => {
    for (const database of [ws2File, join(allowed, 'link-to-ws2.sqlite'), join(allowed, 'data', '..', 'ws2.sqlite')]) {
      const res = await asOwner('POST', `${IN1}/connections`, { name: unique('steal'), db: 'sqlite', database });
      expectError(res, 409, 'connection_file_taken');
      expect(res.body.error).toBe(`database is the file ${ws2File}, which a connection of another workspace uses`);
    }
    // A probe with unsaved fields opens nothing of it either.
    expectError(await asOwner('POST', `${IN1}/connections/test`, { db: 'sqlite', database: ws2File }), 409, 'connection_file_taken');
  });

  it('refuses the data directory: the examples dataset by absolute or relative path, and the store', async () => {
    for (const database of [join(dataDir, 'examples.duckdb'), 'examples.duckdb']) {
      const res = await asOwner('POST', `${IN1}/connections`, { name: unique('dataset'), db: 'duckdb', database });
      expectRefused(res, 'database', "lies in the server's data directory (SLUICE_DATA_DIR)");
    }
    expectRefused(await asAdmin(origin, 'POST', '/api/v1/connections', { name: unique('store'), db: 'sqlite', database: join(dataDir, 'x.sqlite') }), 'database', 'SLUICE_DATA_DIR');
  });

  it('refuses every file form outside SLUICE_FILE_DIRS, naming the setting; the server key too', async () => {
    const notInside = `which is not inside the allowed file folders (SLUICE_FILE_DIRS): ${allowed}`;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ db: 'sqlite', database: join(outside, 'out.sqlite') }, 'database'],
      [{ db: 'sqlite', database: join(allowed, '..', 'outside', 'out.sqlite') }, 'database'],
      [{ db: 'duckdb', database: join(outside, 'x.duckdb') }, 'database'],
      [{ db: 'duckdb', options: { files: { t: join(outside, 'data.csv') } } }, 'options.files.t'],
      [{ db: 'h2', options: { jdbc_url: `jdbc:h2:${join(outside, 'db')}` } }, 'options.jdbc_url'],
      [{ db: 'h2', options: { jdbc_url: `jdbc:h2:file:${join(outside, 'db')};MODE=PostgreSQL` } }, 'options.jdbc_url'],
      [{ db: 'h2', options: { jdbc_url: `jdbc:h2:split:28:nio:${join(outside, 'db')}` } }, 'options.jdbc_url'],
      [{ db: 'h2', options: { jdbc_url: `jdbc:h2:zip:${join(outside, 'db.zip')}!/db` } }, 'options.jdbc_url'],
      [{ db: 'jdbc', options: { jdbc_url: 'jdbc:h2:mem:x', driver_class: 'org.h2.Driver', driver_jar: join(outside, 'evil.jar') } }, 'options.driver_jar'],
    ];
    for (const [fields, field] of cases) {
      for (const call of [asOwner, (m: string, p: string, b?: unknown) => asAdmin(origin, m, p, b)]) {
        const res = await call('POST', `${IN1}/connections`, { name: unique('out'), ...fields });
        expectRefused(res, field, notInside);
      }
    }
    expectRefused(await asOwner('POST', `${IN1}/connections`, { name: unique('home'), db: 'h2', options: { jdbc_url: 'jdbc:h2:~/db' } }), 'options.jdbc_url', 'SLUICE_FILE_DIRS');
    expectRefused(await asOwner('POST', `${IN1}/connections`, { name: unique('uri'), db: 'sqlite', database: `file:${ws2File}` }), 'database', 'must be a file path');
  });

  it('refuses H2 URL settings that run SQL or code, or open a port, when the connection opens (never echoing the URL)', async () => {
    const init = `jdbc:h2:mem:x;INIT=RUNSCRIPT FROM '${join(outside, 'hush.sql')}'`;
    for (const url of [init, 'jdbc:h2:mem:x;init=CREATE ALIAS X AS $$ void x() {} $$', 'jdbc:h2:mem:x;DATABASE_EVENT_LISTENER=a.B', `jdbc:h2:${join(allowed, 'srv')};AUTO_SERVER=TRUE`]) {
      const res = await asOwner('POST', `${IN1}/connections`, { name: unique('init'), db: 'h2', options: { jdbc_url: url } });
      expectError(res, 400, 'invalid_request');
      expect(res.body.errors['options.jdbc_url']).toMatch(/^sets (INIT|DATABASE_EVENT_LISTENER|AUTO_SERVER)/);
      expect(JSON.stringify(res.body)).not.toContain('hush');
    }
  });

  it('allows files inside SLUICE_FILE_DIRS, in-memory and remote forms, and reads them', async () => {
    const name = unique('mine');
    expectStatus(await asOwner('POST', `${IN1}/connections`, { name, db: 'sqlite', database: join(allowed, 'ws1.sqlite') }), 201);
    const read = await asOwner('POST', '/execute_sql', { sql: 'select v from mine', connection_name: name });
    expectStatus(read, 200);
    for (const fields of [{ db: 'duckdb' }, { db: 'duckdb', database: ':memory:' }, { db: 'h2', options: { jdbc_url: 'jdbc:h2:mem:files' } }]) {
      expectStatus(await asOwner('POST', `${IN1}/connections`, { name: unique('mem'), ...fields }), 201);
    }
  });

  it('checks a change and a configuration file the same way; an unchanged file is not re-checked', async () => {
    const name = unique('moved');
    expectStatus(await asOwner('POST', `${IN1}/connections`, { name, db: 'sqlite', database: join(allowed, 'ws1.sqlite') }), 201);
    expectError(await asOwner('PATCH', `${IN1}/connections/${name}`, { database: ws2File }), 409, 'connection_file_taken');
    expectRefused(await asOwner('PATCH', `${IN1}/connections/${name}`, { database: join(outside, 'out.sqlite') }), 'database', 'SLUICE_FILE_DIRS');
    expectStatus(await asOwner('PATCH', `${IN1}/connections/${name}`, { options: { note: 'x' } }), 200);
    const file = { format: 'sluice-config', format_version: 1, connections: [{ name: unique('cfg'), db: 'sqlite', database: join(outside, 'out.sqlite') }] };
    const applied = await asOwner('POST', `${IN1}/config/apply`, file);
    expectError(applied, 400, 'invalid_config');
    expect(JSON.stringify(applied.body)).toContain('SLUICE_FILE_DIRS');
  });

  it("keeps the server's own examples connection, in the data directory, working", async () => {
    expectStatus(await asAdmin(origin, 'POST', '/execute_sql', { sql: 'select count(*) as n from films', connection_name: 'examples' }), 200);
  });
});

describe('SLUICE_FILE_DIRS unset', () => {
  it('allows no file at all, saying which setting to set; in-memory connections still work', async () => {
    const bare = await startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_FILE_DIRS: '' } });
    try {
      const res = await asAdmin(bare, 'POST', '/api/v1/connections', { name: unique('lite'), db: 'sqlite', database: join(allowed, 'ws1.sqlite') });
      expectRefused(res, 'database', 'is a file, and the server allows none: SLUICE_FILE_DIRS is not set');
      expectStatus(await asAdmin(bare, 'POST', '/api/v1/connections', { name: unique('mem'), db: 'duckdb' }), 201);
      expectStatus(await asAdmin(bare, 'POST', '/execute_sql', { sql: 'select count(*) as n from films', connection_name: 'examples' }), 200);
    } finally {
      await bare.stop();
    }
  });
});
