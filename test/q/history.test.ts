import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { addVersion, createQuery, getQ, history, postQ, recordedOf, requestIdOf, waitForRun } from './fixture.ts';
import { unique } from '../harness/unique.ts';

/** Run history of /q and /execute_sql runs, and GET /api/v1/history with its filters and cursor. */

let origin: Origin;
/** `SELECT id, title FROM films WHERE id <= :max_id ORDER BY id`. */
let films: string;

beforeAll(async () => {
  origin = await startOrigin({ env: { TZ: 'Europe/Paris', SLUICE_HISTORY_LIMIT: '3' } });
  films = await createQuery(origin, { sql: 'SELECT id, title FROM films WHERE id <= :max_id ORDER BY id', parameters: { max_id: 'integer' } }, 'films');
});

afterAll(async () => {
  await origin?.stop();
});

/** ISO 8601 in the server's zone (Europe/Paris: +01:00 or +02:00), milliseconds shown. */
const PARIS_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0[12]:00$/;

describe('recorded runs', () => {
  it('records a page run with every field', async () => {
    const before = Date.now();
    const res = await getQ(origin, films, { max_id: 5, page_size: 3, format: 'csv' });
    expect(res.status).toBe(200);
    const run = await waitForRun(origin, requestIdOf(res));
    expect(run).toEqual({
      id: expect.any(Number),
      time: expect.stringMatching(PARIS_TIME),
      query: films,
      version: 1,
      connection: 'examples',
      status: 'success',
      rows: 3,
      duration_ms: expect.any(Number),
      serialization_ms: expect.any(Number),
      request_id: requestIdOf(res),
      trace_id: null,
      key_name: '-',
      transport: 'http',
      format: 'csv',
      error: null,
    });
    expect(Date.parse(run.time)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(run.time)).toBeLessThanOrEqual(Date.now());
    expect(run.duration_ms).toBeGreaterThan(0);
  });

  it('records a run the database rejected as an error with a short message', async () => {
    const name = await createQuery(origin, { sql: 'SELECT CAST(:x AS INTEGER) AS n' });
    const res = await getQ(origin, name, { x: 'not a number' });
    expect(res.status, res.text).toBe(500);
    const run = await waitForRun(origin, requestIdOf(res));
    expect(run).toMatchObject({ query: name, status: 'error', rows: 0, serialization_ms: null, transport: 'http', format: 'json' });
    expect(run.error).toMatch(/^The database rejected the query: Conversion Error/);
    expect(run.error).not.toContain('\n');
  });

  it('records a run cancelled at the time limit', async () => {
    const name = await createQuery(origin, { sql: 'SELECT count(*) AS n FROM range(1000000000000)' });
    const res = await getQ(origin, name, { timeout: 0.3 });
    expect(res.status, res.text).toBe(504);
    const run = await waitForRun(origin, requestIdOf(res));
    expect(run).toMatchObject({ status: 'error', error: expect.stringMatching(/time limit/) });
  });

  it('records a stream once it ends, with its row count and no serialization time', async () => {
    const name = await createQuery(origin, { sql: 'SELECT * FROM rentals' });
    const res = await getQ(origin, name, { stream: 'true', format: 'csv' });
    expect(res.status).toBe(200);
    expect(res.text.trim().split('\n')).toHaveLength(2501);
    const run = await waitForRun(origin, requestIdOf(res));
    expect(run).toMatchObject({ query: name, status: 'success', rows: 2500, transport: 'stream', format: 'csv', serialization_ms: null, error: null });
  });

  it('records a stream the client walked away from as an error', async () => {
    const name = await createQuery(origin, { sql: 'SELECT range AS n, range * 2 AS twice FROM range(50000000)' });
    const abort = new AbortController();
    const res = await origin.fetch(`/q/${name}?stream=true&format=csv`, { signal: abort.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    const run = await waitForRun(origin, res.headers.get('x-request-id')!);
    expect(run).toMatchObject({ query: name, status: 'error', transport: 'stream', error: 'client went away' });
    expect(run.rows).toBeGreaterThan(0);
    expect(run.rows).toBeLessThan(50_000_000);
  });

  it('records ad-hoc /execute_sql runs with no query', async () => {
    const res = await origin.fetch('/execute_sql', { method: 'POST', json: { sql: 'SELECT 1 AS one', connection_name: 'examples' } });
    expect(res.status).toBe(200);
    const run = await waitForRun(origin, res.headers.get('x-request-id')!);
    expect(run).toMatchObject({ query: null, version: null, connection: 'examples', status: 'success', rows: 1 });
  });

  it('records neither unknown queries nor requests refused before the database', async () => {
    const unknown = await getQ(origin, unique('nothing'));
    expect(unknown.status).toBe(404);
    const badPage = await getQ(origin, films, { max_id: 1, page: 0 });
    expect(badPage.status).toBe(400);
    const badParam = await postQ(origin, films, { params: { max_id: 'x' } });
    expect(badParam.status).toBe(400);
    const noConnection = await origin.fetch('/execute_sql', { method: 'POST', json: { sql: 'SELECT 1', connection_name: unique('nowhere') } });
    expect(noConnection.status).toBe(404);
    const write = await origin.fetch('/execute_sql', { method: 'POST', json: { sql: 'CREATE TABLE t (x int)', connection_name: 'examples' } });
    expect(write.status).toBe(403);
    const ids = [...[unknown, badPage, badParam].map(requestIdOf), ...[noConnection, write].map((res) => res.headers.get('x-request-id')!)];
    expect(await recordedOf(origin, ids)).toEqual([]);
  });
});

describe('GET /api/v1/history', () => {
  let name: string;
  /** Request ids of the query's runs, oldest first. */
  const runs: string[] = [];
  let failed: string;

  beforeAll(async () => {
    name = await createQuery(origin, { sql: 'SELECT CAST(:x AS INTEGER) AS n' }, 'hist');
    for (const x of ['1', '2', '3']) runs.push(requestIdOf(await getQ(origin, name, { x })));
    failed = requestIdOf(await getQ(origin, name, { x: 'nope' }));
    runs.push(failed);
    await addVersion(origin, name, { sql: 'SELECT CAST(:x AS INTEGER) + 1 AS n', connection_name: 'examples', publish: true });
    for (const x of ['4', '5']) runs.push(requestIdOf(await getQ(origin, name, { x })));
    await waitForRun(origin, runs[runs.length - 1]);
  });

  it('lists runs newest first, filtered by query', async () => {
    const { items, next_cursor } = await history(origin, { query: name });
    expect(items.map((item) => item.request_id)).toEqual([...runs].reverse());
    expect(next_cursor).toBeNull();
    const ids = items.map((item) => item.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it('filters by version, status and key', async () => {
    expect((await history(origin, { query: name, version: 2 })).items.map((i) => i.request_id)).toEqual([runs[5], runs[4]]);
    expect((await history(origin, { query: name, status: 'error' })).items.map((i) => i.request_id)).toEqual([failed]);
    expect((await history(origin, { query: name, status: 'success', version: 1 })).items).toHaveLength(3);
    expect((await history(origin, { query: name, key: '-' })).items).toHaveLength(6);
    expect((await history(origin, { query: name, key: 'admin' })).items).toHaveLength(0);
  });

  it('filters by time: since inclusive, until exclusive', async () => {
    const { items } = await history(origin, { query: name });
    const middle = items[2];
    const since = (await history(origin, { query: name, since: middle.time })).items;
    expect(since.map((i) => i.id)).toContain(middle.id);
    expect(since.every((i) => Date.parse(i.time) >= Date.parse(middle.time))).toBe(true);
    const until = (await history(origin, { query: name, until: middle.time })).items;
    expect(until.map((i) => i.id)).not.toContain(middle.id);
    expect(until.every((i) => Date.parse(i.time) < Date.parse(middle.time))).toBe(true);
    expect(since.length + until.length).toBe(6);
    // A date alone is midnight in the server's zone; a zone-less time is in the server's zone too.
    expect((await history(origin, { query: name, since: '2000-01-01' })).items).toHaveLength(6);
    expect((await history(origin, { query: name, until: '2000-01-01T00:00:00' })).items).toHaveLength(0);
  });

  it('pages with limit and an opaque cursor that new runs do not disturb', async () => {
    const first = await history(origin, { query: name, limit: 4 });
    expect(first.items).toHaveLength(4);
    expect(first.next_cursor).toEqual(expect.any(String));
    // A run recorded between pages appears on no page already handed out nor on the next.
    const late = requestIdOf(await getQ(origin, name, { x: '6' }));
    await waitForRun(origin, late);
    const second = await history(origin, { query: name, limit: 4, cursor: first.next_cursor! });
    expect(second.items).toHaveLength(2);
    expect(second.next_cursor).toBeNull();
    expect([...first.items, ...second.items].map((i) => i.request_id)).toEqual([...runs].reverse());
  });

  it('refuses bad filter values, unknown filters and foreign cursors', async () => {
    for (const query of ['status=done', 'version=0', 'limit=0', 'limit=1001', 'since=yesterday', 'until=2024-02-30', 'cursor=abc', 'limit=1&limit=2']) {
      const res = await origin.call('GET', `/api/v1/history?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.code, query).toBe('invalid_request');
      expect(Object.keys(res.body.errors ?? {}).length, query).toBe(1);
    }
    const unknown = await origin.call('GET', '/api/v1/history?statuss=error');
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('unknown_field');
  });

  it('defaults to 100 runs and allows up to 1000', async () => {
    expect((await origin.call('GET', '/api/v1/history?limit=1000')).status).toBe(200);
    const all = await history(origin);
    expect(all.items.length).toBeLessThanOrEqual(100);
  });
});

describe('GET /api/v1/queries/{name}/history', () => {
  it("lists one query's runs, by default the newest SLUICE_HISTORY_LIMIT", async () => {
    const name = await createQuery(origin, { sql: 'SELECT 1 AS one' }, 'per');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(requestIdOf(await getQ(origin, name)));
    await waitForRun(origin, ids[4]);
    const page = await origin.call('GET', `/api/v1/queries/${name}/history`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect(page.body.items.map((i: { request_id: string }) => i.request_id)).toEqual([ids[4], ids[3], ids[2]]);
    const rest = await origin.call('GET', `/api/v1/queries/${name}/history?cursor=${page.body.next_cursor}`);
    expect(rest.body.items.map((i: { request_id: string }) => i.request_id)).toEqual([ids[1], ids[0]]);
    expect(rest.body.next_cursor).toBeNull();
    expect((await origin.call('GET', `/api/v1/queries/${name}/history?status=error`)).body.items).toEqual([]);
    expect((await origin.call('GET', `/api/v1/queries/${name}/history?query=other`)).status).toBe(400);
  });

  it('answers 404 query_not_found for an unknown query', async () => {
    const res = await origin.call('GET', `/api/v1/queries/${unique('nothing')}/history`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('query_not_found');
  });
});

describe('with an admin key and a stream cap', () => {
  let keyed: Origin;
  const KEY = 'history-test-admin-key';
  const auth = { 'x-api-key': KEY };

  beforeAll(async () => {
    keyed = await startOrigin({ env: { TZ: 'Europe/Paris', SLUICE_API_KEY: KEY, SLUICE_STREAM_MAX_ROWS: '100' } });
  });
  afterAll(async () => {
    await keyed?.stop();
  });

  it('records a capped stream as a success with the rows sent, under the caller name', async () => {
    const res = await keyed.call('POST', '/api/v1/queries', { name: unique('all_rentals'), sql: 'SELECT * FROM rentals', connection_name: 'examples', publish: true }, auth);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const run = await getQ(keyed, res.body.name, { stream: 'true', format: 'ndjson' }, auth);
    expect(run.status).toBe(200);
    expect(run.text.trim().split('\n')).toHaveLength(100);
    const item = await waitForRun(keyed, requestIdOf(run), auth);
    expect(item).toMatchObject({ status: 'success', rows: 100, transport: 'stream', key_name: 'admin', error: null });
  });

  it('lets the admin key run a draft; a request without the key is refused and not recorded', async () => {
    const made = await keyed.call('POST', '/api/v1/queries', { name: unique('drafted'), sql: "SELECT 'one' AS v", connection_name: 'examples', publish: true }, auth);
    const name = made.body.name;
    const draft = await keyed.call('POST', `/api/v1/queries/${name}/versions`, { sql: "SELECT 'two' AS v", connection_name: 'examples' }, auth);
    expect(draft.status).toBe(201);
    expect((await getQ(keyed, name, {}, auth)).body).toEqual([{ v: 'one' }]);
    expect((await getQ(keyed, name, { version: 2 }, auth)).body).toEqual([{ v: 'two' }]);
    const anonymous = await getQ(keyed, name, { version: 2 });
    expect(anonymous.status).toBe(401);
    expect(await recordedOf(keyed, [requestIdOf(anonymous)], auth)).toEqual([]);
    const listed = await history(keyed, { query: name }, auth);
    expect(listed.items.map((i) => i.version)).toEqual([2, 1]);
    expect((await keyed.call('GET', '/api/v1/history')).status).toBe(401);
  });
});
