import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { unique } from '../harness/unique.ts';

/**
 * `/q/<name>` reads saved-query definitions from an in-process cache (ADR
 * 0010). Every query verb's change must show on the very next `/q` request
 * of the origin that made it, and on another origin sharing the PostgreSQL
 * store as soon as its notification arrives (polled here; bounded at 10 s,
 * generous for a loaded machine, and far below the minute an entry can live). Each step first runs the query on every origin, so the
 * definition is cached where the change has to reach. The origins have a
 * server key, so a scoped key with a `collections` grant can show moves and
 * collection renames (nothing else about a query's collection shows on `/q`).
 */

let database: FreshDatabase;
let dir: string;
/** Two origins on one PostgreSQL store. */
let a: Origin;
let b: Origin;
/** An origin on its own embedded store (PGlite), as the benchmark runs it. */
let solo: Origin;
const CONNECTION = 'cachetest';
const ADMIN_KEY = 'defcache-admin-key-0123456789';
const asAdmin = { 'x-api-key': ADMIN_KEY };
/** How soon another origin must show a change (its notification, under load); a missed one would take a minute. */
const PROPAGATION_MS = 10_000;

beforeAll(async () => {
  database = await freshDatabase();
  dir = await mkdtemp(join(tmpdir(), 'sluice-defcache-'));
  const env = { SLUICE_DATABASE_URL: database.url, SLUICE_EXAMPLES: '0', SLUICE_API_KEY: ADMIN_KEY };
  [a, b, solo] = await Promise.all([
    startOrigin({ template: false, dataDir: await mkdtemp(join(dir, 'a-')), env }),
    startOrigin({ template: false, dataDir: await mkdtemp(join(dir, 'b-')), env }),
    startOrigin({ env: { SLUICE_EXAMPLES: '0', SLUICE_API_KEY: ADMIN_KEY } }),
  ]);
  for (const origin of [a, solo]) {
    const res = await call(origin, 'POST', '/api/v1/connections', { name: CONNECTION, db: 'duckdb' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), solo?.stop()]);
  await database?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** What `/q/<name>` answers, reduced to what a step compares: the status and the value or error code. */
interface Seen {
  status: number;
  /** `v` of the first row, or the error message (`/q` answers `{error}`). */
  v: unknown;
  cache: string | null;
}

/** A Management API call with the server key. */
const call = (o: Origin, method: string, path: string, body?: unknown) => o.call(method, path, body, asAdmin);

async function q(o: Origin, name: string, query = '', key = ADMIN_KEY): Promise<Seen> {
  const res = await o.fetch(`/q/${encodeURIComponent(name)}${query ? `?${query}` : ''}`, { headers: { 'x-api-key': key } });
  const body = await res.json();
  return { status: res.status, v: res.status === 200 ? body[0]?.v : body.error, cache: res.headers.get('x-cache') };
}

/** Polls `o` until it answers like `expected` (its status and value); returns how long that took. */
async function reaches(o: Origin, name: string, expected: Omit<Seen, 'cache'>, query = '', key = ADMIN_KEY): Promise<number> {
  const started = Date.now();
  for (;;) {
    const seen = await q(o, name, query, key);
    if (seen.status === expected.status && seen.v === expected.v) return Date.now() - started;
    if (Date.now() - started > 15_000) throw new Error(`still ${JSON.stringify(seen)} after 15 s, expected ${JSON.stringify(expected)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const at = (name: string) => `/api/v1/queries/${encodeURIComponent(name)}`;
const gone = (name: string) => ({ status: 404, v: `Query "${name}" not found or not published` });
const noVersion = (name: string, version: number) => ({ status: 404, v: `Query "${name}" has no version ${version}` });

async function ok(res: Promise<{ status: number; body: any }>, status = 200) {
  const answered = await res;
  expect(answered.status, JSON.stringify(answered.body)).toBe(status);
  return answered.body;
}

const create = (o: Origin, name: string, sql: string, extra: Record<string, unknown> = {}) =>
  ok(call(o, 'POST', '/api/v1/queries', { name, sql, connection_name: CONNECTION, publish: true, ...extra }), 201);

/**
 * One change made on `maker`: `expected` must be what `maker` answers on its
 * very next request, and what every other origin on the store answers
 * within PROPAGATION_MS. Every origin has the definition cached beforehand.
 */
async function changeShows(maker: Origin, others: Origin[], name: string, change: () => Promise<unknown>, expected: Omit<Seen, 'cache'>, query = '', key = ADMIN_KEY) {
  for (const o of [maker, ...others]) await q(o, name, query, key);
  await change();
  const next = await q(maker, name, query, key);
  expect({ status: next.status, v: next.v }).toEqual(expected);
  for (const o of others) expect(await reaches(o, name, expected, query, key)).toBeLessThan(PROPAGATION_MS);
}

describe.each([
  ['one origin on the embedded store', () => ({ maker: solo, others: [] as Origin[] })],
  ['two origins sharing a PostgreSQL store', () => ({ maker: a, others: [b] })],
])('query definition cache: %s', (_, origins) => {
  it('shows new versions, publish, rollback, unpublish and version deletes at once', async () => {
    const { maker, others } = origins();
    const all = [maker, ...others];
    const name = unique('defcache');
    for (const o of all) expect(await q(o, name)).toMatchObject(gone(name));
    await create(maker, name, 'select 1 as v');
    expect(await q(maker, name)).toMatchObject({ status: 200, v: 1 });
    for (const o of others) expect(await reaches(o, name, { status: 200, v: 1 })).toBeLessThan(PROPAGATION_MS);

    // A draft: the published version keeps serving; the draft answers by number.
    await changeShows(maker, others, name, () => ok(call(maker, 'POST', `${at(name)}/versions`, { sql: 'select 2 as v', connection_name: CONNECTION }), 201), { status: 200, v: 2 }, 'version=2');
    for (const o of all) expect(await q(o, name)).toMatchObject({ status: 200, v: 1 });

    await changeShows(maker, others, name, () => ok(call(maker, 'POST', `${at(name)}/publish`, { version: 2 })), { status: 200, v: 2 });
    await changeShows(maker, others, name, () => ok(call(maker, 'POST', `${at(name)}/versions`, { sql: 'select 3 as v', connection_name: CONNECTION, publish: true }), 201), { status: 200, v: 3 });
    // Rollback to an older version.
    await changeShows(maker, others, name, () => ok(call(maker, 'POST', `${at(name)}/publish`, { version: 1 })), { status: 200, v: 1 });
    await changeShows(maker, others, name, () => ok(call(maker, 'POST', `${at(name)}/unpublish`)), gone(name));
    await changeShows(maker, others, name, () => ok(call(maker, 'POST', `${at(name)}/publish`, { version: 3 })), { status: 200, v: 3 });
    // Deleting the published version publishes the newest older one.
    await changeShows(maker, others, name, () => ok(call(maker, 'DELETE', `${at(name)}/versions/3`)), { status: 200, v: 2 });
    await changeShows(maker, others, name, () => ok(call(maker, 'DELETE', `${at(name)}/versions/2`)), noVersion(name, 2), 'version=2');
  });

  it('shows a deleted query gone, and a query created again under its name as the new one', async () => {
    const { maker, others } = origins();
    const name = unique('defcache');
    await create(maker, name, 'select 1 as v');
    for (const o of others) await reaches(o, name, { status: 200, v: 1 });
    await changeShows(maker, others, name, () => ok(call(maker, 'DELETE', at(name))), gone(name));
    await changeShows(maker, others, name, () => create(maker, name, 'select 7 as v'), { status: 200, v: 7 });
    // Deleting the last version removes the query.
    await changeShows(maker, others, name, () => ok(call(maker, 'DELETE', `${at(name)}/versions/1`)), gone(name));
  });

  it('shows a cache_ttl change on the next run: cached from then on, and not cached once it is cleared', async () => {
    const { maker, others } = origins();
    const all = [maker, ...others];
    const name = unique('defcache');
    await create(maker, name, 'select 5 as v');
    for (const o of all) expect(await reaches(o, name, { status: 200, v: 5 })).toBeLessThan(PROPAGATION_MS);
    for (const o of all) expect((await q(o, name)).cache).toBeNull();

    await ok(call(maker, 'PATCH', `${at(name)}/versions/1`, { cache_ttl: 60 }));
    expect((await q(maker, name)).cache).not.toBeNull();
    for (const o of others) await until(async () => (await q(o, name)).cache !== null);

    await ok(call(maker, 'PATCH', `${at(name)}/versions/1`, { cache_ttl: null }));
    expect((await q(maker, name)).cache).toBeNull();
    for (const o of others) await until(async () => (await q(o, name)).cache === null);
  });

  it('shows moves between collections and collection renames to a key reaching the query through its collection', async () => {
    const { maker, others } = origins();
    const all = [maker, ...others];
    const name = unique('defcache');
    const collection = unique('coll');
    await create(maker, name, 'select 9 as v', { collection });
    const key = await ok(call(maker, 'POST', '/api/v1/api-keys', { name: unique('key'), collections: [collection] }), 201);
    const mine = { status: 200, v: 9 };
    const notMine = gone(name);
    for (const o of all) expect(await reaches(o, name, mine, '', key.secret)).toBeLessThan(PROPAGATION_MS);

    await changeShows(maker, others, name, () => ok(call(maker, 'PATCH', at(name), { collection: `${collection}-elsewhere` })), notMine, '', key.secret);
    await changeShows(maker, others, name, () => ok(call(maker, 'PATCH', at(name), { collection })), mine, '', key.secret);
    // The key's grant follows the rename: it reaches the query only if the query is read in its new collection.
    const renamed = `${collection}-renamed`;
    await changeShows(maker, others, name, () => ok(call(maker, 'PATCH', `/api/v1/collections/${collection}`, { name: renamed })), mine, '', key.secret);
    expect((await call(maker, 'GET', at(name))).body.collection).toBe(renamed);
    expect((await call(maker, 'GET', `/api/v1/api-keys/${key.name}`)).body.collections).toEqual([renamed]);
  });
});

async function until(condition: () => Promise<boolean>): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > PROPAGATION_MS) throw new Error(`not reached within ${PROPAGATION_MS} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
