import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type TestDb, createTestDb } from '../query/fixture.ts';
import { ADMIN_KEY, type Reply, adminWithToken, asAdmin, bearer, expectStatus } from './fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';

/**
 * Workspace boundaries in grants (docs/reference/workspaces.md): a key's or
 * role's grants name only connections and queries of its own workspace, `*`
 * means every one of that workspace, and at run time a key reaches only its
 * workspace's queries, on its workspace's connections. The server key and
 * server-wide roles keep their reach. Two PostgreSQL schemas stand behind a
 * connection of `default` and one of a second workspace.
 */

let origin: Origin;
let dir: string;
let home: TestDb;
let away: TestDb;
let ownerToken: string;
const WS2 = unique('ws2');
const IN_WS2 = `/w/${WS2}/api/v1`;
const PG = unique('pg');
const WS2PG = unique('ws2pg');
const SECRET_Q = unique('secret_q');
const FILMS_Q = unique('films_q');
const WS2_Q = unique('ws2_q');
const ALL = [SECRET_Q, FILMS_Q, WS2_Q];

const asOwner = (method: string, path: string, body?: unknown): Promise<Reply> => origin.call(method, path, body, bearer(ownerToken));

async function created(res: Promise<Reply>): Promise<Reply> {
  const reply = await res;
  expectStatus(reply, 201);
  return reply;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-boundaries-'));
  home = await createTestDb('postgres', dir);
  away = await createTestDb('postgres', dir);
  await home.exec('CREATE TABLE films (id int, title text)', "INSERT INTO films VALUES (1, 'Alpha')", 'CREATE TABLE secrets (v text)', "INSERT INTO secrets VALUES ('hidden')");
  await away.exec('CREATE TABLE films (id int, title text)', "INSERT INTO films VALUES (1, 'ws2 film')");
  origin = await startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } });
  await created(asAdmin(origin, 'POST', '/api/v1/workspaces', { name: WS2 }));
  await created(asAdmin(origin, 'POST', '/api/v1/connections', { name: PG, ...home.fields }));
  await created(asAdmin(origin, 'POST', `${IN_WS2}/connections`, { name: WS2PG, ...away.fields }));
  await created(asAdmin(origin, 'POST', '/api/v1/queries', { name: SECRET_Q, sql: 'select v from secrets', connection_name: PG, publish: true }));
  await created(asAdmin(origin, 'POST', '/api/v1/queries', { name: FILMS_Q, sql: 'select title from films order by id', connection_name: PG, publish: true }));
  await created(asAdmin(origin, 'POST', `${IN_WS2}/queries`, { name: WS2_Q, sql: 'select title from films order by id', connection_name: WS2PG, publish: true }));
  const owner = unique('ws2-owner');
  ownerToken = await adminWithToken(origin, owner, null);
  await created(asAdmin(origin, 'PUT', `/api/v1/workspaces/${WS2}/members/${owner}`, { role: 'owner' }));
});

afterAll(async () => {
  await origin?.stop();
  await home?.drop();
  await away?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A caller presenting a key's secret (or a token) in X-API-Key. */
function as(secret: string) {
  const headers = { 'x-api-key': secret };
  return {
    get: (path: string) => origin.call('GET', path, undefined, headers),
    post: (path: string, body: unknown) => origin.call('POST', path, body, headers),
    sql: (connection: string, sql = 'select 1 as one') => origin.call('POST', '/execute_sql', { sql, connection_name: connection }, headers),
  };
}

/** Among `ALL` (and `names`), the queries `/catalog` lists and `/openapi.json` documents for a caller; the two must agree. */
async function discovered(secret: string, names: string[] = ALL): Promise<string[]> {
  const catalog = await as(secret).get('/catalog');
  expectStatus(catalog, 200);
  const listed = (catalog.body.queries as { name: string }[]).map((q) => q.name).filter((n) => names.includes(n)).sort();
  const openapi = await as(secret).get('/openapi.json');
  expectStatus(openapi, 200);
  const documented = names.filter((n) => `/q/${n}` in openapi.body.paths).sort();
  expect(documented).toEqual(listed);
  return listed;
}

/** A key made in `base` (`/api/v1` or `/w/<ws>/api/v1`) by `call`; its secret. */
async function keyIn(base: string, grants: Record<string, unknown>, call = (m: string, p: string, b?: unknown) => asAdmin(origin, m, p, b)): Promise<string> {
  const res = await created(call('POST', `${base}/api-keys`, { name: unique('key'), ...grants }));
  return res.body.secret;
}

const notGranted = (connection: string) => ({ error: `Connection "${connection}" not granted to this API key` });

describe('grants name objects of the workspace of the key or role', () => {
  it("refuses a workspace owner's key naming another workspace's connection or query (400, nothing created)", async () => {
    for (const grants of [{ connections: [PG] }, { queries: [SECRET_Q] }, { queries: [{ name: SECRET_Q, allow_writes: true }] }]) {
      const name = unique('leak');
      const res = await asOwner('POST', `${IN_WS2}/api-keys`, { name, ...grants });
      expectError(res, 400, 'invalid_request');
      const field = Object.keys(grants)[0]!;
      expect(res.body.errors[field]).toContain(field === 'connections' ? PG : SECRET_Q);
      expectError(await asAdmin(origin, 'GET', `/api/v1/api-keys/${name}`), 404, 'key_not_found');
    }
    // An unknown name answers the same way as a foreign one.
    const unknown = await asOwner('POST', `${IN_WS2}/api-keys`, { name: unique('k'), connections: [WS2PG, 'nowhere'] });
    expectError(unknown, 400, 'invalid_request');
    expect(unknown.body.error).toBe(`No connection named "nowhere" in workspace "${WS2}"`);
    const foreign = await asOwner('POST', `${IN_WS2}/api-keys`, { name: unique('k'), connections: [PG] });
    expect(foreign.body.error).toBe(`No connection named "${PG}" in workspace "${WS2}"`);
    // Its own workspace's names, and `*`, are fine.
    await keyIn(IN_WS2, { connections: [WS2PG], queries: [WS2_Q] }, asOwner);
    await keyIn(IN_WS2, { connections: '*', queries: '*' }, asOwner);
  });

  it('refuses new foreign names on PATCH of a key, naming every unknown one', async () => {
    const name = unique('patched');
    await created(asOwner('POST', `${IN_WS2}/api-keys`, { name, connections: [WS2PG] }));
    const res = await asOwner('PATCH', `${IN_WS2}/api-keys/${name}`, { connections: [WS2PG, PG], queries: [WS2_Q, FILMS_Q] });
    expectError(res, 400, 'invalid_request');
    expect(res.body.errors).toEqual({ connections: `not in workspace "${WS2}": ${PG}`, queries: `not in workspace "${WS2}": ${FILMS_Q}` });
    expect((await asOwner('GET', `${IN_WS2}/api-keys/${name}`)).body).toMatchObject({ connections: [WS2PG], queries: [] });
    expectStatus(await asOwner('PATCH', `${IN_WS2}/api-keys/${name}`, { queries: [WS2_Q] }), 200);
  });

  it('refuses foreign names in roles, on create and on PATCH', async () => {
    expectError(await asOwner('POST', `${IN_WS2}/roles`, { name: unique('role'), connections: [PG] }), 400, 'invalid_request');
    expectError(await asOwner('POST', `${IN_WS2}/roles`, { name: unique('role'), queries: [SECRET_Q] }), 400, 'invalid_request');
    const role = unique('role');
    await created(asOwner('POST', `${IN_WS2}/roles`, { name: role, connections: [WS2PG], queries: [WS2_Q] }));
    expectError(await asOwner('PATCH', `${IN_WS2}/roles/${role}`, { queries: [WS2_Q, SECRET_Q] }), 400, 'invalid_request');
    expectError(await asOwner('PATCH', `${IN_WS2}/roles/${role}`, { connections: [PG] }), 400, 'invalid_request');
  });

  it('holds default to the same rule: a plain /api/v1 key or role names only objects of default', async () => {
    expectError(await asAdmin(origin, 'POST', '/api/v1/api-keys', { name: unique('k'), connections: [WS2PG] }), 400, 'invalid_request');
    expectError(await asAdmin(origin, 'POST', '/api/v1/api-keys', { name: unique('k'), queries: [WS2_Q] }), 400, 'invalid_request');
    expectError(await asAdmin(origin, 'POST', '/api/v1/roles', { name: unique('r'), connections: [WS2PG] }), 400, 'invalid_request');
    // The server key names ws2's objects through ws2's path, and a key of ws2 is checked against ws2 on a plain PATCH too.
    const name = unique('k');
    await created(asAdmin(origin, 'POST', `${IN_WS2}/api-keys`, { name, connections: [WS2PG] }));
    expectError(await asAdmin(origin, 'PATCH', `/api/v1/api-keys/${name}`, { connections: [PG] }), 400, 'invalid_request');
    expectStatus(await asAdmin(origin, 'PATCH', `/api/v1/api-keys/${name}`, { queries: [WS2_Q] }), 200);
  });
});

describe("a query's default connection is of the query's workspace", () => {
  it('refuses another workspace\'s connection on create, on a new version and in validate (400, nothing saved)', async () => {
    const name = unique('foreign_conn_q');
    const fields = { sql: 'select v from secrets', connection_name: PG };
    const refused = await asOwner('POST', `${IN_WS2}/queries`, { name, ...fields, publish: true });
    expectError(refused, 400, 'invalid_request');
    expect(refused.body.errors.connection_name).toBe(`no connection named "${PG}" in workspace "${WS2}"`);
    expectError(await asOwner('GET', `${IN_WS2}/queries/${name}`), 404, 'query_not_found');

    const versions = async () => (await asOwner('GET', `${IN_WS2}/queries/${WS2_Q}`)).body.versions.length;
    const before = await versions();
    expectError(await asOwner('POST', `${IN_WS2}/queries/${WS2_Q}/versions`, fields), 400, 'invalid_request');
    expect(await versions()).toBe(before);

    const validated = await asOwner('POST', `${IN_WS2}/queries/validate`, fields);
    expectStatus(validated, 200);
    expect(validated.body.valid).toBe(false);
    expect(validated.body.errors.connection_name).toContain(WS2);

    // The server key acting in ws2 is held to the same rule; in default, default's connection is fine.
    expectError(await asAdmin(origin, 'POST', `${IN_WS2}/queries`, { name, ...fields }), 400, 'invalid_request');
    expectStatus(await asAdmin(origin, 'POST', '/api/v1/queries/validate', fields), 200);
  });
});

describe('at run time a key reaches only its own workspace', () => {
  it("gives a ws2 key holding * only ws2's queries and connections", async () => {
    const secret = await keyIn(IN_WS2, { connections: '*', queries: '*' }, asOwner);
    const key = as(secret);
    expect(await discovered(secret)).toEqual([WS2_Q]);
    expect((await key.get(`/q/${WS2_Q}`)).body).toEqual([{ title: 'ws2 film' }]);
    for (const name of [SECRET_Q, FILMS_Q]) expect((await key.get(`/q/${name}`)).status).toBe(404);
    const elsewhere = await key.get(`/q/${WS2_Q}?connection_name=${PG}`);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body).toEqual(notGranted(PG));
    expect((await key.post(`/q/${WS2_Q}`, { connection_name: PG })).status).toBe(403);

    const refused = await key.sql(PG, 'select v from secrets');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(notGranted(PG));
    expect((await key.get(`/connections/${PG}/schema`)).body).toEqual(notGranted(PG));
    expect((await key.get(`/connections/${PG}/table_ddl?table=secrets`)).status).toBe(403);
    expect((await key.sql(WS2PG, 'select title from films')).body).toEqual([{ title: 'ws2 film' }]);
    expectStatus(await key.get(`/connections/${WS2PG}/schema`), 200);
  });

  it('runs a query of default only on connections of default, whatever the request names', async () => {
    const byName = as(await keyIn('/api/v1', { queries: [FILMS_Q] }));
    expect((await byName.get(`/q/${FILMS_Q}`)).body).toEqual([{ title: 'Alpha' }]);
    const refused = await byName.get(`/q/${FILMS_Q}?connection_name=${WS2PG}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(notGranted(WS2PG));
    expect((await byName.post(`/q/${FILMS_Q}`, { connection_name: WS2PG })).status).toBe(403);

    const everything = await keyIn('/api/v1', { connections: '*', queries: '*' });
    expect(await discovered(everything)).toEqual([FILMS_Q, SECRET_Q].sort());
    expect((await as(everything).get(`/q/${FILMS_Q}?connection_name=${WS2PG}`)).status).toBe(403);
    expect((await as(everything).get(`/q/${WS2_Q}`)).status).toBe(404);
    expect((await as(everything).sql(WS2PG)).body).toEqual(notGranted(WS2PG));
    expect((await as(everything).get(`/connections/${WS2PG}/schema`)).status).toBe(403);
  });

  it('leaves the server key and server-wide roles their reach; a membership reaches its workspace only', async () => {
    expect(await discovered(ADMIN_KEY)).toEqual([...ALL].sort());
    expect((await as(ADMIN_KEY).get(`/q/${FILMS_Q}?connection_name=${WS2PG}`)).body).toEqual([{ title: 'ws2 film' }]);
    expect((await as(ADMIN_KEY).sql(WS2PG, 'select title from films')).body).toEqual([{ title: 'ws2 film' }]);

    const developer = await adminWithToken(origin, unique('developer'), 'developer');
    expect(await discovered(developer)).toEqual([...ALL].sort());
    expect((await as(developer).get(`/q/${FILMS_Q}?connection_name=${WS2PG}`)).body).toEqual([{ title: 'ws2 film' }]);

    expect(await discovered(ownerToken)).toEqual([WS2_Q]);
    expect((await as(ownerToken).get(`/q/${WS2_Q}`)).status).toBe(200);
    expect((await as(ownerToken).get(`/q/${WS2_Q}?connection_name=${PG}`)).status).toBe(403);
    expect((await as(ownerToken).sql(PG)).status).toBe(403);
  });

  it('lets grants a key or role already holds stop reaching a name that moved to another workspace', async () => {
    const [conn, query, role] = [unique('moving'), unique('moving_q'), unique('moving-role')];
    await created(asAdmin(origin, 'POST', `${IN_WS2}/connections`, { name: conn, ...away.fields }));
    await created(asAdmin(origin, 'POST', `${IN_WS2}/queries`, { name: query, sql: 'select 1 as one', connection_name: conn, publish: true }));
    const keyName = unique('holder');
    const secret = (await created(asAdmin(origin, 'POST', `${IN_WS2}/api-keys`, { name: keyName, connections: [conn], queries: [query] }))).body.secret;
    await created(asAdmin(origin, 'POST', `${IN_WS2}/roles`, { name: role, connections: [conn, WS2PG], queries: [query, WS2_Q], max_rows: 7 }));
    const holder = as(secret);
    expect((await holder.sql(conn)).status).toBe(200);
    expect(await discovered(secret, [query])).toEqual([query]);

    // The names leave ws2 and come back as default's, over default's data.
    expectStatus(await asAdmin(origin, 'DELETE', `${IN_WS2}/queries/${query}`), 200);
    expectStatus(await asAdmin(origin, 'DELETE', `${IN_WS2}/connections/${conn}`, { reason: 'moved to default' }), 200);
    await created(asAdmin(origin, 'POST', '/api/v1/connections', { name: conn, ...home.fields }));
    await created(asAdmin(origin, 'POST', '/api/v1/queries', { name: query, sql: 'select v from secrets', connection_name: conn, publish: true }));

    expect(await discovered(secret, [query])).toEqual([]);
    expect((await holder.get(`/q/${query}`)).status).toBe(404);
    expect((await holder.sql(conn, 'select v from secrets')).body).toEqual(notGranted(conn));
    expect((await holder.get(`/connections/${conn}/schema`)).status).toBe(403);
    // The key can still be edited around the names it holds.
    const patched = await asAdmin(origin, 'PATCH', `${IN_WS2}/api-keys/${keyName}`, { connections: [conn, WS2PG], max_rows: 3 });
    expectStatus(patched, 200);
    expect(patched.body.connections).toEqual([conn, WS2PG]);

    // A role copies only the grants valid in the key's workspace.
    const fromRole = await created(asAdmin(origin, 'POST', `${IN_WS2}/api-keys`, { name: unique('copy'), role }));
    expect(fromRole.body).toMatchObject({ workspace: WS2, connections: [WS2PG], queries: [WS2_Q], max_rows: 7, created_from_role: role });
    const plain = await created(asAdmin(origin, 'POST', '/api/v1/api-keys', { name: unique('copy'), role }));
    expect(plain.body).toMatchObject({ workspace: 'default', connections: [conn], queries: [query], max_rows: 7 });
  });
});
