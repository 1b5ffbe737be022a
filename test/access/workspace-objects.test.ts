import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { ADMIN_KEY, type Reply, asAdmin, expectStatus } from './fixtures.ts';
import { expectError } from '../harness/expect-error.ts';

/**
 * On `/w/<workspace>/api/v1/...` a connection or saved query of another
 * workspace is unknown on every single-object route: 404 with the code of an
 * unknown name, and nothing changes. Plain `/api/v1/...` reaches every workspace.
 */

let origin: Origin;
const W1 = 'w1';
const HOME = '/w/w1/api/v1';
const OTHER = '/w/default/api/v1';
const PLAIN = '/api/v1';
const conn = { w1: 'conn-w1', default: 'conn-default' };
const query = { w1: 'query_w1', default: 'query_default' };

beforeAll(async () => {
  origin = await startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } });
  expectStatus(await asAdmin(origin, 'POST', '/api/v1/workspaces', { name: W1 }), 201);
  expectStatus(await asAdmin(origin, 'POST', `${HOME}/connections`, { name: conn.w1, db: 'duckdb' }), 201);
  expectStatus(await asAdmin(origin, 'POST', `${OTHER}/connections`, { name: conn.default, db: 'duckdb' }), 201);
  expectStatus(await asAdmin(origin, 'POST', `${HOME}/queries`, { name: query.w1, sql: 'select 1 as x', connection_name: conn.w1 }), 201);
  expectStatus(await asAdmin(origin, 'POST', `${OTHER}/queries`, { name: query.default, sql: 'select 1 as x', connection_name: conn.default }), 201);
});

afterAll(async () => {
  await origin?.stop();
});

type Call = [method: string, path: string, body?: unknown];

/** Every single-object connection route, as `[method, path under /api/v1, body]`, reads and harmless probes first. */
const connectionReads = (name: string): Call[] => [
  ['GET', `/connections/${name}`],
  ['GET', `/connections/${name}/schema`],
  ['POST', '/connections/test', { name }],
  ['POST', '/connections/databases', { name }],
];

const queryReads = (name: string): Call[] => [
  ['GET', `/queries/${name}`],
  ['GET', `/queries/${name}/versions/1`],
  ['GET', `/queries/${name}/versions/1/flow`],
  ['GET', `/queries/${name}/history`],
];

/** Changes, in an order that succeeds when run by the workspace that owns the query. */
const queryChanges = (name: string): Call[] => [
  ['POST', `/queries/${name}/versions`, { sql: 'select 2 as x', connection_name: conn.w1 }],
  ['PATCH', `/queries/${name}/versions/2`, { cache_ttl: 5 }],
  ['POST', `/queries/${name}/publish`, { version: 2 }],
  ['POST', `/queries/${name}/unpublish`],
  ['PATCH', `/queries/${name}`, { collection: 'moved' }],
  ['DELETE', `/queries/${name}/versions/2`],
  ['DELETE', `/queries/${name}`],
];

const connectionChanges = (name: string): Call[] => [
  ['PATCH', `/connections/${name}`, { active: false }],
  ['DELETE', `/connections/${name}`, { reason: 'workspace test' }],
];

const addsVersion = ([method, path]: Call) => method === 'POST' && path.endsWith('/versions');

const call = (base: string, [method, path, body]: Call): Promise<Reply> => asAdmin(origin, method, `${base}${path}`, body);

async function expectHidden(base: string, calls: Call[], code: string): Promise<void> {
  for (const c of calls) {
    const res = await call(base, c);
    expectError(res, 404, code);
    expect(res.body.error, `${c[0]} ${c[1]}`).not.toMatch(/workspace/i);
  }
}

async function expectServed(base: string, calls: Call[]): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (const c of calls) {
    const res = await call(base, c);
    expect(res.status, `${c[0]} ${base}${c[1]}: ${JSON.stringify(res.body)}`).toBe(addsVersion(c) ? 201 : 200);
    replies.push(res);
  }
  return replies;
}

describe('single-object routes on a workspace-scoped call', () => {
  it('answer an unknown name with the codes the hidden objects then get', async () => {
    expectError(await asAdmin(origin, 'GET', `${OTHER}/connections/nowhere`), 404, 'connection_not_found');
    expectError(await asAdmin(origin, 'GET', `${OTHER}/queries/nowhere`), 404, 'query_not_found');
  });

  it('hide every read of a connection and a query of another workspace, and serve them in their own', async () => {
    await expectHidden(OTHER, connectionReads(conn.w1), 'connection_not_found');
    await expectHidden(OTHER, queryReads(query.w1), 'query_not_found');
    await expectHidden(HOME, connectionReads(conn.default), 'connection_not_found');
    await expectHidden(HOME, queryReads(query.default), 'query_not_found');

    await expectServed(HOME, [...connectionReads(conn.w1), ...queryReads(query.w1)]);
    await expectServed(OTHER, [...connectionReads(conn.default), ...queryReads(query.default)]);
  });

  it('let plain /api/v1 calls reach the objects of every workspace', async () => {
    const [c1, cd, q1, qd] = await expectServed(PLAIN, [
      ['GET', `/connections/${conn.w1}`],
      ['GET', `/connections/${conn.default}`],
      ['GET', `/queries/${query.w1}`],
      ['GET', `/queries/${query.default}`],
    ]);
    expect([c1!.body.name, cd!.body.name, q1!.body.name, qd!.body.name]).toEqual([conn.w1, conn.default, query.w1, query.default]);
    await expectServed(PLAIN, [...connectionReads(conn.w1), ...queryReads(query.w1)]);
  });

  it('refuse every change to objects of another workspace, which stay as they were, and make them in their own', async () => {
    const before = await asAdmin(origin, 'GET', `${HOME}/queries/${query.w1}`);
    expectStatus(before, 200);
    await expectHidden(OTHER, queryChanges(query.w1), 'query_not_found');
    await expectHidden(OTHER, connectionChanges(conn.w1), 'connection_not_found');
    const after = await asAdmin(origin, 'GET', `${HOME}/queries/${query.w1}`);
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    expect((await asAdmin(origin, 'GET', `${HOME}/connections/${conn.w1}`)).body.active).toBe(true);

    const [added, ttl, published, unpublished, moved, droppedVersion, deleted] = await expectServed(HOME, queryChanges(query.w1));
    expect(added!.body.versions.map((v: any) => v.version)).toEqual([2, 1]);
    expect(ttl!.body.cache_ttl).toBe(5);
    expect(published!.body.published_version).toBe(2);
    expect(unpublished!.body.published_version).toBeNull();
    expect(moved!.body.collection).toBe('moved');
    expect(droppedVersion!.body).toMatchObject({ name: query.w1, version: 2, query_removed: false });
    expect(deleted!.body.name).toBe(query.w1);

    const [patched, removed] = await expectServed(HOME, connectionChanges(conn.w1));
    expect(patched!.body.active).toBe(false);
    expect(removed!.body.name).toBe(conn.w1);
    expectError(await asAdmin(origin, 'GET', `${PLAIN}/connections/${conn.w1}`), 404, 'connection_not_found');
    expectError(await asAdmin(origin, 'GET', `${PLAIN}/queries/${query.w1}`), 404, 'query_not_found');
  });
});
