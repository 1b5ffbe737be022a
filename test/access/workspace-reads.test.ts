import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANAGEMENT_ENDPOINTS } from '../../origin/routes/v1/index.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type TestDb, createTestDb } from '../query/fixture.ts';
import { ADMIN_KEY, type Reply, adminWithToken, asAdmin, bearer, expectStatus } from './fixtures.ts';
import { unique } from '../harness/unique.ts';

/**
 * Workspace-scoped reads show nothing of another workspace
 * (docs/reference/workspaces.md). Two workspaces each hold a connection,
 * saved queries in a collection, a key, a role, runs, cache entries and
 * audit entries; every GET route of the Management API (read from the list
 * `/openapi.json` documents, so a new route is walked too) is called at
 * `/w/<ws1>/api/v1/...` by ws1's owner, its path parameters filled with
 * ws1's own objects, and no answer may carry any of ws2's marker strings.
 */

let origin: Origin;
let dir: string;
let db1: TestDb;
let db2: TestDb;
let owner1Token: string;

/** Every ws2 string carries this: found anywhere in an answer to ws1, it leaked. */
const MARK = `zq${process.pid}leak`;
const WS1 = unique('ws1');
const WS2 = unique(`ws2${MARK}`);
const ws1 = { conn: unique('conn1'), query: unique('query1'), collection: unique('coll1'), key: unique('key1'), role: unique('role1'), owner: unique('owner1') };
const ws2 = {
  conn: unique(`conn2${MARK}`),
  hostConn: unique(`hostconn2${MARK}`),
  host: `host-${MARK}.invalid`,
  user: `user_${MARK}`,
  query: unique(`query2${MARK}`),
  sql: `select title, 'sql-${MARK}' as marker from films`,
  collection: unique(`coll2${MARK}`),
  key: unique(`key2${MARK}`),
  role: unique(`role2${MARK}`),
  owner: unique(`owner2${MARK}`),
};
const IN = (ws: string) => `/w/${ws}/api/v1`;

async function created(res: Promise<Reply>): Promise<Reply> {
  const reply = await res;
  expectStatus(reply, 201);
  return reply;
}

/** Creates one workspace's objects, runs, cache entries and audit entries. */
async function populate(ws: string, db: TestDb, o: typeof ws1 & Partial<typeof ws2>, sql: string): Promise<void> {
  const base = IN(ws);
  await created(asAdmin(origin, 'POST', '/api/v1/workspaces', { name: ws }));
  await created(asAdmin(origin, 'POST', `${base}/connections`, { name: o.conn, ...db.fields }));
  if (o.hostConn) await created(asAdmin(origin, 'POST', `${base}/connections`, { name: o.hostConn, db: 'postgres', host: o.host, port: 5432, user: o.user, database: 'test' }));
  await created(asAdmin(origin, 'POST', `${base}/queries`, { name: o.query, sql, connection_name: o.conn, publish: true, cache_ttl: 300, collection: o.collection }));
  await created(asAdmin(origin, 'POST', `${base}/roles`, { name: o.role, connections: [o.conn], queries: [o.query] }));
  const key = await created(asAdmin(origin, 'POST', `${base}/api-keys`, { name: o.key, connections: [o.conn], queries: [o.query], collections: [o.collection] }));
  const token = await adminWithToken(origin, o.owner, null);
  await created(asAdmin(origin, 'PUT', `/api/v1/workspaces/${ws}/members/${o.owner}`, { role: 'owner' }));
  if (ws === WS1) owner1Token = token;
  // Runs: a saved query by its key (cached), by the server key, and ad-hoc SQL on the connection.
  expectStatus(await origin.call('GET', `/q/${o.query}`, undefined, { 'x-api-key': key.body.secret }), 200);
  expectStatus(await asAdmin(origin, 'GET', `/q/${o.query}?page_size=5`), 200);
  expectStatus(await asAdmin(origin, 'POST', '/execute_sql', { sql, connection_name: o.conn }), 200);
  // Audit entries naming the query's SQL and the connection: a new version, a changed connection.
  await created(asAdmin(origin, 'POST', `${base}/queries/${o.query}/versions`, { sql: `${sql} where true`, connection_name: o.conn }));
  // A deleted connection stays listed, with its host.
  const gone = `${o.conn}-gone`;
  await created(asAdmin(origin, 'POST', `${base}/connections`, { name: gone, db: 'postgres', host: o.host ?? '127.0.0.1', port: 5432, user: 'postgres', database: 'test' }));
  expectStatus(await asAdmin(origin, 'DELETE', `${base}/connections/${gone}`, { reason: 'test' }), 200);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-ws-reads-'));
  db1 = await createTestDb('postgres', dir);
  db2 = await createTestDb('postgres', dir);
  for (const db of [db1, db2]) await db.exec('CREATE TABLE films (id int, title text)', "INSERT INTO films VALUES (1, 'Alpha')");
  origin = await startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } });
  await populate(WS1, db1, ws1, 'select title from films');
  await populate(WS2, db2, ws2, ws2.sql);
});

afterAll(async () => {
  await origin?.stop();
  await db1?.drop();
  await db2?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const asOwner1 = (path: string): Promise<Reply> => origin.call('GET', path, undefined, bearer(owner1Token));

/** A documented path with its parameters filled with ws1's own objects. */
async function filled(path: string): Promise<string> {
  const byArea: Record<string, string> = {
    connections: ws1.conn,
    queries: ws1.query,
    collections: ws1.collection,
    'api-keys': ws1.key,
    roles: ws1.role,
    administrators: ws1.owner,
    workspaces: WS1,
  };
  const area = path.split('/')[3]!;
  let out = path.replace('{version}', '1').replace('{admin}', ws1.owner).replace('{id}', '1');
  if (out.includes('{key}')) {
    const entries = await asAdmin(origin, 'GET', '/api/v1/cache/entries');
    const own = (entries.body.entries as { key: string; meta: { query: string } }[]).find((e) => e.meta.query === ws1.query);
    out = out.replace('{key}', own?.key ?? 'none');
  }
  return out.replace('{name}', encodeURIComponent(byArea[area] ?? 'none'));
}

/** Where a marker shows in an answer; `echoed`, names the request itself sent (a 404 may repeat them), are not counted. */
const leaks = (reply: Reply, echoed: string[] = []): string[] => {
  let text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  for (const name of echoed) text = text.replaceAll(name, '');
  return text.includes(MARK) ? [text.slice(Math.max(0, text.indexOf(MARK) - 200), text.indexOf(MARK) + 100)] : [];
};

describe('workspace-scoped reads', () => {
  it('every GET route of the Management API, called in ws1 by its owner, shows nothing of ws2', async () => {
    const gets = MANAGEMENT_ENDPOINTS.filter((e) => e.method === 'get').map((e) => e.path);
    expect(gets.length).toBeGreaterThan(30);
    const extra = [
      `/api/v1/audit?q=${MARK}`,
      `/api/v1/audit?target=${ws2.query}`,
      `/api/v1/history?query=${ws2.query}`,
      `/api/v1/queries?search=${MARK}`,
      `/api/v1/queries?connection=${ws2.conn}`,
      `/api/v1/collections/${ws2.collection}/postman`,
      `/api/v1/collections/${ws2.collection}/bundle`,
    ];
    const found: Record<string, string[]> = {};
    let answered = 0;
    for (const path of [...gets, ...extra]) {
      const url = IN(WS1) + (await filled(path)).slice('/api/v1'.length);
      const reply = await asOwner1(url);
      if (reply.status === 200) answered++;
      const leaked = leaks(reply, decodeURIComponent(url).match(new RegExp(`[\\w.-]*${MARK}[\\w.-]*`, 'g')) ?? []);
      if (leaked.length > 0) found[`${path} (${reply.status})`] = leaked;
    }
    expect(found).toEqual({});
    expect(answered).toBeGreaterThan(25);
  });

  it('lists and counts only ws1 objects: audit total, history runs, collections, cache entries', async () => {
    const audit = await asOwner1(`${IN(WS1)}/audit?limit=1000`);
    expectStatus(audit, 200);
    expect(audit.body.total).toBe(audit.body.items.length);
    expect(audit.body.items.map((e: { target: string }) => e.target)).toEqual(expect.arrayContaining([ws1.conn, ws1.query, ws1.key, ws1.role]));
    const history = await asOwner1(`${IN(WS1)}/history`);
    expectStatus(history, 200);
    expect(new Set(history.body.items.map((r: { connection: string }) => r.connection))).toEqual(new Set([ws1.conn]));
    expect(history.body.items.length).toBe(3);
    const collections = await asOwner1(`${IN(WS1)}/collections`);
    expect(collections.body.collections.map((c: { name: string }) => c.name)).toEqual([ws1.collection]);
    const cache = await asOwner1(`${IN(WS1)}/cache/entries`);
    expect(new Set(cache.body.entries.map((e: { meta: { query: string } }) => e.meta.query))).toEqual(new Set([ws1.query]));
  });

  it('a cache entry, collection or administrator of ws2 is not found in ws1', async () => {
    const entries = await asAdmin(origin, 'GET', '/api/v1/cache/entries');
    const foreign = (entries.body.entries as { key: string; meta: { query: string } }[]).find((e) => e.meta.query === ws2.query)!;
    expect(foreign).toBeDefined();
    expectStatus(await asOwner1(`${IN(WS1)}/cache/entries/${foreign.key}`), 404);
    expectStatus(await asOwner1(`${IN(WS1)}/collections/${ws2.collection}/postman`), 404);
    expectStatus(await asOwner1(`${IN(WS1)}/administrators/${ws2.owner}`), 404);
  });

  it('the server key on plain /api/v1 still sees every workspace', async () => {
    for (const path of ['/api/v1/audit?limit=1000', '/api/v1/history', '/api/v1/collections', '/api/v1/cache/entries', '/api/v1/administrators', '/api/v1/connections', '/api/v1/connections/deleted']) {
      const reply = await asAdmin(origin, 'GET', path);
      expectStatus(reply, 200);
      expect(leaks(reply).length, path).toBe(1);
    }
    const audit = await asAdmin(origin, 'GET', `/api/v1/audit?q=${encodeURIComponent(ws2.host)}`);
    expect(audit.body.items.map((e: { action: string }) => e.action)).toContain('create_connection');
  });
});

describe('workspace-scoped collection renames', () => {
  it("rename a collection in that workspace only; another workspace's of the same name, or its own, is untouched", async () => {
    const shared = unique('shared');
    const mine = unique('mine');
    const theirs = unique(`theirs${MARK}`);
    await created(asAdmin(origin, 'POST', `${IN(WS1)}/queries`, { name: mine, sql: 'select 1', connection_name: ws1.conn, collection: shared }));
    await created(asAdmin(origin, 'POST', `${IN(WS2)}/queries`, { name: theirs, sql: 'select 1', connection_name: ws2.conn, collection: shared }));
    const renamed = await origin.call('PATCH', `${IN(WS1)}/collections/${shared}`, { name: `${shared}-new` }, bearer(owner1Token));
    expectStatus(renamed, 200);
    expect(renamed.body.queries).toEqual([mine]);
    expect(leaks(renamed)).toEqual([]);
    const theirsNow = await asAdmin(origin, 'GET', `/api/v1/queries/${theirs}`);
    expect(theirsNow.body.collection).toBe(shared);
    const entry = (await asAdmin(origin, 'GET', `/api/v1/audit?action=rename_collection&target=${shared}`)).body.items[0];
    expect(entry.workspace).toBe(WS1);
    expectStatus(await origin.call('PATCH', `${IN(WS1)}/collections/${ws2.collection}`, { name: unique('grab') }, bearer(owner1Token)), 404);
  });
});
