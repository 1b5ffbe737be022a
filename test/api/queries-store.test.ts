import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../origin/store/open.ts';
import { auditLog, queries, queryVersions, runs } from '../../origin/store/schema/index.ts';
import { type Origin, startOrigin, templateDir } from '../harness/origin.ts';
import { API, FILM_SQL, at, definition, versionAt } from './queries-fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';

/**
 * What saved queries leave in the store: they survive restarts, run counts
 * and last use come from stored runs, each change wrote exactly one audit
 * entry (a failed change none), and deletes keep run history.
 */

const KEY = 'queries-store-admin-key-0123456789';
const auth = { 'x-api-key': KEY };

let root: string;
let dataDir: string;
let origin: Origin | undefined;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sluice-queries-store-'));
  dataDir = join(root, 'data');
  await cp(templateDir(), dataDir, { recursive: true });
});

afterAll(async () => {
  await origin?.stop();
  await rm(root, { recursive: true, force: true });
});

const A = unique('audited');
const B = unique('deleted whole');
const C = unique('last version');
const start = () => startOrigin({ dataDir, env: { SLUICE_API_KEY: KEY } });

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return origin!.call(method, path, body, { ...auth, ...headers });
}
async function expectStatus(promise: ReturnType<typeof call>, status: number) {
  const res = await promise;
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res;
}

describe('persistence, runs and audit', () => {
  let etagA: string;
  let bodyA: any;
  let idB: number;
  let newestRun: Date;

  it('saves queries and refuses bad changes', async () => {
    origin = await start();
    expect((await origin.call('GET', API)).status).toBe(401);
    const created = await expectStatus(call('POST', API, { name: A, ...definition({ collection: 'audit', description: 'audited', tags: ['t'] }) }), 201);
    // The author defaults to the calling key's name.
    expect(created.body.author).toBe('admin');
    await expectStatus(call('POST', `${at(A)}/versions`, definition({ publish: true, author: 'Ada', sql: `${FILM_SQL} and price > 0` })), 201);
    idB = Number(/^"q(\d+)\./.exec((await expectStatus(call('POST', API, { name: B, ...definition({ publish: true }) }), 201)).headers.get('etag')!)![1]);
    await expectStatus(call('POST', API, { name: C, ...definition() }), 201);

    // Refused: taken name, bad definition, stale If-Match, unknown version, bad collection. None is audited.
    expectError(await call('POST', API, { name: A, ...definition() }), 409, 'query_exists');
    expectError(await call('POST', `${at(A)}/versions`, { sql: 'select 1; select 2' }), 400, 'invalid_request');
    expectError(await call('PATCH', at(A), { collection: 'x' }, { 'if-match': '"q0.0"' }), 412, 'precondition_failed');
    expectError(await call('POST', `${at(A)}/publish`, { version: 9 }), 404, 'version_not_found');
    expectError(await call('PATCH', at(A), { collection: 'Upper' }), 400, 'invalid_request');

    const read = await expectStatus(call('GET', at(A)), 200);
    etagA = read.headers.get('etag')!;
    bodyA = read.body;
    await origin.stop();
    origin = undefined;
  });

  /** Runs of A (and of others) written straight to the stored history, while no origin runs. */
  async function seedRuns() {
    const store = await openStore({ dataDir });
    try {
      const [row] = await store.db.select().from(queries).where(eq(queries.name, A));
      const now = Date.now();
      newestRun = new Date(now + 5_000);
      const run = (query: string | null, version: number | null, time: Date) => ({
        time,
        query,
        version,
        connection: 'examples',
        status: 'success' as const,
        rows: 1,
        durationMs: 1.5,
      });
      await store.db.insert(runs).values([
        run(A, 1, new Date(now)),
        run(A, 1, new Date(now + 1)),
        run(A, 2, newestRun),
        // A namesake's run from before this query existed, and an ad-hoc run.
        run(A, 1, new Date(row.createdAt.getTime() - 86_400_000)),
        run(null, null, new Date(now + 10_000)),
        run(B, 1, new Date(now + 2)),
      ]);
    } finally {
      await store.close();
    }
  }

  it('keeps everything across a restart, ETag included; counts stored runs per version and the newest of any, since the query was created', async () => {
    await seedRuns();
    origin = await start();
    const read = await expectStatus(call('GET', at(A)), 200);
    expect(read.headers.get('etag')).toBe(etagA);
    const { last_used_at, versions, ...rest } = read.body;
    const { last_used_at: before, versions: versionsBefore, ...restBefore } = bodyA;
    expect(before).toBeNull();
    expect(rest).toEqual(restBefore);
    expect(Date.parse(last_used_at)).toBe(newestRun.getTime());
    expect(versions.map((v: any) => [v.version, v.status, v.run_count])).toEqual([
      [2, 'published', 1],
      [1, 'previous', 2],
    ]);
    expect(versions.map((v: any) => ({ ...v, run_count: 0 }))).toEqual(versionsBefore);
    expect((await expectStatus(call('GET', versionAt(A, 1)), 200)).body.run_count).toBe(2);
    const listed = (await expectStatus(call('GET', `${API}?search=${encodeURIComponent(A)}`), 200)).body.queries;
    expect(listed).toHaveLength(1);
    expect(Date.parse(listed[0].last_used_at)).toBe(newestRun.getTime());
    expect((await expectStatus(call('GET', at(C)), 200)).body.last_used_at).toBeNull();
  });

  it('makes the remaining changes', async () => {
    await expectStatus(call('POST', `${at(A)}/publish`, { version: 1 }), 200);
    await expectStatus(call('PATCH', versionAt(A, 1), { cache_ttl: 60 }), 200);
    await expectStatus(call('PATCH', at(A), { collection: 'moved' }), 200);
    await expectStatus(call('POST', `${at(A)}/unpublish`), 200);
    await expectStatus(call('POST', `${at(A)}/publish`, { version: 2 }), 200);
    const deleted = await expectStatus(call('DELETE', versionAt(A, 2)), 200);
    expect(deleted.body.query.published_version).toBe(1);
    // No-ops write nothing: the same collection, the same cache_ttl, publishing the published version.
    await expectStatus(call('PATCH', at(A), { collection: 'moved' }), 200);
    await expectStatus(call('PATCH', versionAt(A, 1), { cache_ttl: 60 }), 200);
    await expectStatus(call('POST', `${at(A)}/publish`, { version: 1 }), 200);
    await expectStatus(call('DELETE', at(B)), 200);
    await expectStatus(call('DELETE', versionAt(C, 1)), 200);
    await origin!.stop();
    origin = undefined;
  });

  it('wrote one audit entry per change, in its transaction, with snapshots and diffs', async () => {
    const store = await openStore({ dataDir });
    try {
      const entries = await store.db.select().from(auditLog).where(inArray(auditLog.target, [A, B, C])).orderBy(asc(auditLog.seq));
      expect(entries.map((e) => [e.action, e.target])).toEqual([
        ['save_query', A],
        ['save_query', A],
        ['save_query', B],
        ['save_query', C],
        ['publish_query', A],
        ['update_query_version', A],
        ['move_query', A],
        ['unpublish_query', A],
        ['publish_query', A],
        ['delete_query_version', A],
        ['delete_query', B],
        ['delete_query_version', C],
      ]);
      for (const entry of entries) expect(entry.actor).toBe('admin');
      const [createA, addA, , , rollback, ttl, move, unpublish, republish, deleteV2, deleteB, deleteC] = entries.map((e) => e.changes);

      expect(createA).toMatchObject({
        name: A,
        version: 1,
        query_type: 'sql',
        sql: FILM_SQL,
        parameters: { id: 'int' },
        description: 'audited',
        connection_name: 'examples',
        tags: ['t'],
        author: 'admin',
        cache_ttl: null,
        collection: 'audit',
        published: false,
      });
      expect(addA).toMatchObject({ name: A, version: 2, sql: `${FILM_SQL} and price > 0`, author: 'Ada', published: true });
      expect(rollback).toEqual({ version: { from: 2, to: 1 } });
      expect(ttl).toEqual({ version: 1, cache_ttl: { from: null, to: 60 } });
      expect(move).toEqual({ collection: { from: 'audit', to: 'moved' }, keys_gaining_access: [], keys_losing_access: [] });
      expect(unpublish).toEqual({ version: { from: 1, to: null } });
      expect(republish).toEqual({ version: { from: null, to: 2 } });
      expect(deleteV2).toMatchObject({ name: A, version: 2, sql: `${FILM_SQL} and price > 0`, published_version: { from: 2, to: 1 } });
      expect(deleteB).toMatchObject({ name: B, published_version: 1, collection: null, versions: [{ version: 1, sql: FILM_SQL, parameters: { id: 'int' } }] });
      expect(deleteC).toMatchObject({ name: C, version: 1, query_removed: true });

      // The chain is gap-free.
      const seqs = (await store.db.select({ seq: auditLog.seq }).from(auditLog).orderBy(asc(auditLog.seq))).map((r) => r.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));

      // A: one revision per change (create, add, 6 changes); its numbers continue past the deleted version.
      const [rowA] = await store.db.select().from(queries).where(eq(queries.name, A));
      expect(rowA).toMatchObject({ revision: 8, publishedVersion: 1, nextVersion: 3, collection: 'moved' });
      // B and C are gone with their versions; run history stays.
      expect(await store.db.select().from(queries).where(inArray(queries.name, [B, C]))).toEqual([]);
      expect(await store.db.select().from(queryVersions).where(eq(queryVersions.queryId, idB))).toEqual([]);
      expect(await store.db.select().from(runs).where(eq(runs.query, B))).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});
