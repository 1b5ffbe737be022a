import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../origin/store/open.ts';
import { apiKeys, examplesState, queries } from '../../origin/store/schema/index.ts';
import { tempDir } from '../api/connections-fixtures.ts';
import { type Origin, startOrigin, templateDir } from '../harness/origin.ts';

/**
 * The examples tour (POST/GET/DELETE /api/v1/examples) as a newcomer meets
 * it: install on a fresh origin, call every example query with the keys the
 * install returned, remove it all; installing twice, a conflict, an
 * interrupted install completed by a second POST.
 */

const KEY = 'examples-admin-key-0123456789';
const admin = { 'x-api-key': KEY };
const QUERIES = ['example_customers_by_country', 'example_films_by_rating', 'example_films_longer_than', 'example_rentals_by_month', 'example_top_films'];
const KEYS = ['example_catalogue_key', 'example_rentals_key'];
const started: Origin[] = [];
const cleanups: Array<() => Promise<void>> = [];

afterAll(async () => {
  await Promise.all(started.map((origin) => origin.stop()));
  await Promise.all(cleanups.map((clean) => clean()));
});

async function start(options: Parameters<typeof startOrigin>[0] = {}): Promise<Origin> {
  const origin = await startOrigin({ edge: false, ...options, env: { SLUICE_API_KEY: KEY, ...options.env } });
  started.push(origin);
  return origin;
}

const auditActions = async (origin: Origin): Promise<string[]> =>
  (await origin.call('GET', '/api/v1/audit?limit=200', undefined, admin)).body.items.map((e: { action: string }) => e.action);

describe("a new user's path", () => {
  it('installs the tour, runs every example query with the returned keys, and removes it all', async () => {
    const origin = await start();
    const before = await origin.call('GET', '/api/v1/examples', undefined, admin);
    expect(before.body).toEqual({ loaded: false, partial: false, connection: 'examples', queries: [], roles: [], keys: [], collections: [] });

    const installed = await origin.call('POST', '/api/v1/examples', undefined, admin);
    expect(installed.status).toBe(200);
    expect(installed.headers.get('cache-control')).toBe('no-store');
    expect(installed.body).toMatchObject({
      loaded: true,
      partial: false,
      connection: 'examples',
      queries: QUERIES,
      roles: ['example_reader'],
      keys: KEYS,
      collections: ['example-catalogue', 'example-rentals'],
    });
    const secrets = installed.body.key_secrets as Record<string, string>;
    expect(Object.keys(secrets).sort()).toEqual(KEYS);
    for (const secret of Object.values(secrets)) expect(secret).toMatch(/^slc_/);
    expect(await auditActions(origin)).toContain('load_examples');

    const listed = await origin.call('GET', '/api/v1/queries?collection=example-catalogue', undefined, admin);
    const summaries = listed.body.queries;
    expect(summaries.length).toBe(3);
    for (const summary of summaries) expect(summary.example).toBe(true);

    const catalogue = { 'x-api-key': secrets.example_catalogue_key };
    const rentals = { 'x-api-key': secrets.example_rentals_key };

    const pg = await origin.call('GET', '/q/example_films_by_rating?rating=PG', undefined, catalogue);
    expect(pg.status).toBe(200);
    expect(pg.body.length).toBeGreaterThan(0);
    expect(pg.body[0]).toEqual({ id: expect.any(Number), title: expect.any(String), release_date: expect.anything(), price: expect.anything() });
    const badRating = await origin.call('GET', '/q/example_films_by_rating?rating=XX', undefined, catalogue);
    expect(badRating.status).toBe(400);
    expect(Object.keys(badRating.body.errors)).toEqual(['rating']);

    const long = await origin.call('GET', '/q/example_films_longer_than', undefined, catalogue);
    expect(long.status).toBe(200);
    expect(long.body.length).toBeGreaterThan(0);
    for (const row of long.body) expect(row.length_minutes).toBeGreaterThanOrEqual(120);
    expect((await origin.call('GET', '/q/example_films_longer_than?minutes=0', undefined, catalogue)).status).toBe(400);
    expect((await origin.call('GET', '/q/example_films_longer_than?minutes=601', undefined, catalogue)).status).toBe(400);

    const top = await origin.call('GET', '/q/example_top_films', undefined, catalogue);
    expect(top.status).toBe(200);
    expect(top.body).toHaveLength(10);
    expect(top.body[0]).toMatchObject({ title: 'The Quiet Harbour', rentals: 123 });
    expect(top.headers.get('x-cache')).toBe('MISS');
    expect((await origin.call('GET', '/q/example_top_films', undefined, catalogue)).headers.get('x-cache')).toBe('HIT');

    // Each key reaches its own collection only.
    expect((await origin.call('GET', '/q/example_rentals_by_month', undefined, catalogue)).status).toBe(404);

    const france = await origin.call('GET', '/q/example_customers_by_country?country=France', undefined, rentals);
    expect(france.status).toBe(200);
    expect(france.body.length).toBeGreaterThan(0);
    for (const row of france.body) expect(row.country).toBe('France');
    const lower = await origin.call('GET', '/q/example_customers_by_country?country=france', undefined, rentals);
    expect(lower.status).toBe(400);
    expect(Object.keys(lower.body.errors)).toEqual(['country']);
    const months = await origin.call('GET', '/q/example_rentals_by_month?page_size=12', undefined, rentals);
    expect(months.status).toBe(200);
    expect(months.body.map((row: { month: string }) => row.month)).toEqual(Array.from({ length: 12 }, (_, i) => `2024-${String(i + 1).padStart(2, '0')}`));
    expect((await origin.call('GET', '/q/example_top_films', undefined, rentals)).status).toBe(404);

    // A key of the operator's own, granted an example collection.
    const own = await origin.call('POST', '/api/v1/api-keys', { name: 'my_reports_key', collections: ['example-catalogue'] }, admin);
    expect(own.status).toBe(201);

    const removed = await origin.call('DELETE', '/api/v1/examples', undefined, admin);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({
      removed: { connection: 'examples', queries: QUERIES, roles: ['example_reader'], keys: KEYS, collections: ['example-catalogue', 'example-rentals'] },
      keys_still_granted: ['my_reports_key'],
    });

    expect((await origin.call('GET', '/api/v1/examples', undefined, admin)).body).toEqual({
      loaded: false,
      partial: false,
      connection: null,
      queries: [],
      roles: [],
      keys: [],
      collections: [],
    });
    const connections = (await origin.call('GET', '/api/v1/connections', undefined, admin)).body;
    expect(JSON.stringify(connections)).not.toContain('"example":true');
    const left = (await origin.call('GET', '/api/v1/queries', undefined, admin)).body;
    expect(JSON.stringify(left)).not.toContain('"example":true');
    const keys = JSON.stringify((await origin.call('GET', '/api/v1/api-keys', undefined, admin)).body);
    for (const name of KEYS) expect(keys).not.toContain(name);
    expect(keys).toContain('my_reports_key');
    expect(JSON.stringify((await origin.call('GET', '/api/v1/roles', undefined, admin)).body)).not.toContain('example_reader');
    expect((await origin.call('GET', '/q/example_films_by_rating?rating=PG', undefined, catalogue)).status).toBe(401);
    expect(await auditActions(origin)).toContain('unload_examples');

    // Removed stays removed: a second DELETE removes nothing.
    const again = await origin.call('DELETE', '/api/v1/examples', undefined, admin);
    expect(again.body.removed).toEqual({ connection: null, queries: [], roles: [], keys: [], collections: [] });
  });
});

describe('installing', () => {
  it('twice: the second changes nothing and shows no secret', async () => {
    const origin = await start();
    const first = await origin.call('POST', '/api/v1/examples', undefined, admin);
    expect(Object.keys(first.body.key_secrets)).toHaveLength(2);
    const audit = await auditActions(origin);

    const second = await origin.call('POST', '/api/v1/examples', undefined, admin);
    expect(second.status).toBe(200);
    expect(second.body.key_secrets).toEqual({});
    const { key_secrets: _a, ...firstStatus } = first.body;
    const { key_secrets: _b, ...secondStatus } = second.body;
    expect(secondStatus).toEqual(firstStatus);
    expect(await auditActions(origin)).toEqual(audit);
  });

  it('twice at once on one origin: they take turns, and the secrets are shown by one answer only', async () => {
    const origin = await start();
    const answers = await Promise.all([1, 2].map(() => origin.call('POST', '/api/v1/examples', undefined, admin)));
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers.map((a) => Object.keys(a.body.key_secrets).length).sort()).toEqual([0, 2]);
    expect((await auditActions(origin)).filter((action) => action === 'load_examples')).toHaveLength(2);
  });

  it('refuses a name taken by an object of your own with 409 examples_conflict, changing nothing', async () => {
    const origin = await start();
    const mine = await origin.call('POST', '/api/v1/queries', { name: 'example_top_films', sql: 'select 1 as one', connection_name: 'examples', publish: true }, admin);
    expect(mine.status).toBe(201);
    const snapshot = async () => ({
      examples: (await origin.call('GET', '/api/v1/examples', undefined, admin)).body,
      queries: (await origin.call('GET', '/api/v1/queries', undefined, admin)).body,
      keys: (await origin.call('GET', '/api/v1/api-keys', undefined, admin)).body,
      roles: (await origin.call('GET', '/api/v1/roles', undefined, admin)).body,
      audit: await auditActions(origin),
    });
    const before = await snapshot();

    const refused = await origin.call('POST', '/api/v1/examples', undefined, admin);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('examples_conflict');
    expect(refused.body.conflicts).toEqual([{ kind: 'query', name: 'example_top_films' }]);
    expect(refused.body.error).toContain('example_top_films');
    expect(await snapshot()).toEqual(before);
  });

  it('needs examples.write to install or remove; reading the status needs queries.read', async () => {
    const origin = await start();
    expect((await origin.call('POST', '/api/v1/administrators', { name: 'dev_examples', role: 'developer' }, admin)).status).toBe(201);
    const issued = await origin.call('POST', '/api/v1/administrators/dev_examples/tokens', { label: 'test' }, admin);
    const developer = { authorization: `Bearer ${issued.body.secret}` };
    expect((await origin.call('GET', '/api/v1/examples', undefined, developer)).status).toBe(200);
    for (const method of ['POST', 'DELETE']) {
      const refused = await origin.call(method, '/api/v1/examples', undefined, developer);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toContain('examples.write');
    }
  });

  it('on an open server is refused: its keys would turn authentication on', async () => {
    const origin = await startOrigin({ edge: false });
    started.push(origin);
    const refused = await origin.call('POST', '/api/v1/examples');
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('administrator_required');
    expect((await origin.call('GET', '/api/v1/examples')).body.queries).toEqual([]);
  });

  it('an interrupted install is partial, and a second POST completes it', async () => {
    const tmp = await tempDir();
    cleanups.push(tmp.remove);
    const dataDir = join(tmp.dir, 'data');
    await cp(templateDir(), dataDir, { recursive: true });
    const first = await start({ dataDir });
    expect((await first.call('POST', '/api/v1/examples', undefined, admin)).status).toBe(200);
    await first.stop();

    // What an install stopped midway leaves: the state says partial, the last objects are missing.
    const store = await openStore({ dataDir });
    try {
      await store.db.delete(apiKeys).where(eq(apiKeys.name, 'example_rentals_key'));
      await store.db.delete(queries).where(eq(queries.name, 'example_rentals_by_month'));
      await store.db.update(examplesState).set({ status: 'partial' });
    } finally {
      await store.close();
    }

    const origin = await start({ dataDir });
    const status = await origin.call('GET', '/api/v1/examples', undefined, admin);
    expect(status.body).toMatchObject({ loaded: false, partial: true, keys: ['example_catalogue_key'] });
    expect(status.body.queries).not.toContain('example_rentals_by_month');

    const completed = await origin.call('POST', '/api/v1/examples', undefined, admin);
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({ loaded: true, partial: false, queries: QUERIES, keys: KEYS });
    expect(Object.keys(completed.body.key_secrets)).toEqual(['example_rentals_key']);
    const months = await origin.call('GET', '/q/example_rentals_by_month', undefined, { 'x-api-key': completed.body.key_secrets.example_rentals_key });
    expect(months.status).toBe(200);
  });
});
