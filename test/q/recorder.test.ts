import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count, eq, sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { SluiceError } from '../../origin/errors.ts';
import { type RunEntry, HistoryRecorder } from '../../origin/services/history/recorder.ts';
import { resolveRunnable } from '../../origin/services/queries/resolve.ts';
import { type Store, type StoreDb, openStore } from '../../origin/store/open.ts';
import { queries, queryVersions, runs } from '../../origin/store/schema/index.ts';
import { emptyGrants } from '../../shared/access/grants.ts';
import { templateDir } from '../harness/origin.ts';

/** Units on an embedded store: the history recorder's batching, trimming and shutdown, and who may run which version. */

let dir: string;
let store: Store;
const logger = pino({ level: 'silent' });
const DAY = 86_400_000;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-recorder-'));
  // A copy of the run's migrated store: a new one is seconds of initdb.
  await cp(templateDir(), dir, { recursive: true });
  store = await openStore({ dataDir: dir });
});

afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

let seq = 0;
const entry = (fields: Partial<RunEntry> = {}): RunEntry => ({
  time: new Date(),
  query: 'unit',
  version: 1,
  connection: 'examples',
  status: 'success',
  rows: 1,
  durationMs: 1.5,
  serializationMs: 0.5,
  requestId: `req${++seq}`,
  keyName: '-',
  transport: 'http',
  format: 'json',
  error: null,
  ...fields,
});

/** The store with its transactions counted and, while `failing`, refused. */
function countingStore() {
  const state = { transactions: 0, failing: false };
  const db = new Proxy(store.db, {
    get(target, prop, receiver) {
      if (prop === 'transaction') {
        return (fn: Parameters<StoreDb['transaction']>[0]) => {
          state.transactions += 1;
          if (state.failing) return Promise.reject(new Error('store unavailable'));
          return target.transaction(fn);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  return { store: { db }, state };
}

const stored = async (query: string) =>
  Number((await store.db.select({ n: count() }).from(runs).where(eq(runs.query, query)))[0].n);

describe('HistoryRecorder', () => {
  beforeEach(async () => {
    await store.db.delete(runs);
  });

  it('queues without touching the store, announces each run, and its timer writes the queue', async () => {
    const { store: counted, state } = countingStore();
    const recorder = new HistoryRecorder(counted, { retentionDays: 0, logger, flushIntervalMs: 100 });
    const heard: RunEntry[] = [];
    recorder.on('run', (run) => heard.push(run));
    const run = entry({ query: 'timed' });
    recorder.record(run);
    expect(state.transactions).toBe(0);
    expect(heard).toEqual([run]);
    expect(recorder.pending).toBe(1);
    // Written by the timer alone: nothing here flushes.
    await vi.waitFor(async () => expect(await stored('timed')).toBe(1), { timeout: 10_000, interval: 25 });
    expect(state.transactions).toBe(1);
    await recorder.close();
  });

  it('writes a full batch at once, one transaction per batch', async () => {
    const { store: counted, state } = countingStore();
    const recorder = new HistoryRecorder(counted, { retentionDays: 0, logger, flushIntervalMs: 60_000, batchSize: 500 });
    for (let i = 0; i < 1200; i++) recorder.record(entry({ query: 'bulk' }));
    // The 500th run starts a flush at once (the interval is a minute); it drains the queue in batches of 500.
    await vi.waitFor(async () => expect(await stored('bulk')).toBe(1200), { timeout: 10_000, interval: 25 });
    expect(state.transactions).toBe(3);
    await recorder.close();
  });

  it('keeps runs queued while the store refuses them, and writes them later', async () => {
    const { store: counted, state } = countingStore();
    const recorder = new HistoryRecorder(counted, { retentionDays: 0, logger, flushIntervalMs: 60_000 });
    state.failing = true;
    recorder.record(entry({ query: 'retried' }));
    recorder.record(entry({ query: 'retried' }));
    await recorder.flush();
    expect(recorder.pending).toBe(2);
    state.failing = false;
    await recorder.flush();
    expect(recorder.pending).toBe(0);
    expect(await stored('retried')).toBe(2);
    await recorder.close();
  });

  it('writes what is queued on close, and records nothing after', async () => {
    const recorder = new HistoryRecorder(store, { retentionDays: 0, logger, flushIntervalMs: 60_000 });
    recorder.record(entry({ query: 'closing' }));
    await recorder.close();
    expect(await stored('closing')).toBe(1);
    recorder.record(entry({ query: 'closing' }));
    expect(recorder.pending).toBe(0);
    expect(await stored('closing')).toBe(1);
  });

  it('trims runs past the retention during flushes, at most once per interval', async () => {
    let now = Date.now();
    const recorder = new HistoryRecorder(store, { retentionDays: 30, logger, flushIntervalMs: 60_000, trimIntervalMs: 60_000, now: () => now });
    recorder.record(entry({ query: 'old', time: new Date(now - 40 * DAY) }));
    recorder.record(entry({ query: 'recent', time: new Date(now - 10 * DAY) }));
    await recorder.flush();
    expect(await stored('old')).toBe(0);
    expect(await stored('recent')).toBe(1);

    recorder.record(entry({ query: 'old', time: new Date(now - 40 * DAY) }));
    await recorder.flush();
    expect(await stored('old')).toBe(1); // trimmed less than a minute ago

    now += 61_000;
    await recorder.flush(); // nothing queued: the trim alone
    expect(await stored('old')).toBe(0);
    expect(await stored('recent')).toBe(1);
    await recorder.close();
  });

  it('keeps everything with a retention of 0 days', async () => {
    const recorder = new HistoryRecorder(store, { retentionDays: 0, logger });
    recorder.record(entry({ query: 'ancient', time: new Date(Date.now() - 3650 * DAY) }));
    await recorder.close();
    expect(await stored('ancient')).toBe(1);
  });

  it('survives a listener that throws', async () => {
    const recorder = new HistoryRecorder(store, { retentionDays: 0, logger });
    recorder.on('run', () => {
      throw new Error('listener bug');
    });
    expect(() => recorder.record(entry({ query: 'listened' }))).not.toThrow();
    await recorder.close();
    expect(await stored('listened')).toBe(1);
  });
});

describe('resolveRunnable', () => {
  const admin = { admin: true };
  /** A scoped key that reaches every query by name: published and previous versions, never drafts. */
  const other = { admin: false, via: 'key' as const, key: { id: 1, name: 'other', workspace: 'default', grants: { ...emptyGrants(), queries: ['*'] } } };
  const stranger = { admin: false, via: 'key' as const, key: { id: 2, name: 'stranger', workspace: 'default', grants: emptyGrants() } };
  let seqName = 0;

  /** A query with versions 1..n, `published` published (or none). */
  async function makeQuery(versions: number, published: number | null) {
    const name = `resolve_${process.pid}_${++seqName}`;
    const [query] = await store.db.insert(queries).values({ name, publishedVersion: published, nextVersion: versions + 1 }).returning();
    for (let v = 1; v <= versions; v++) {
      await store.db.insert(queryVersions).values({ queryId: query.id, version: v, sql: `SELECT ${v} AS v`, parameters: { x: { type: 'int', default: v } }, connectionName: 'examples' });
    }
    return name;
  }

  const failure = async (promise: Promise<unknown>) => {
    const err = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SluiceError);
    return { code: (err as SluiceError).code, message: (err as SluiceError).message, status: (err as SluiceError).status };
  };

  it('runs the published version unless one is asked; older versions run for anyone', async () => {
    const name = await makeQuery(3, 2);
    expect((await resolveRunnable({ store }, name, undefined, other)).version.version).toBe(2);
    const previous = await resolveRunnable({ store }, name, 1, other);
    expect(previous.version.version).toBe(1);
    expect(previous.status).toBe('previous');
    expect(previous.rules).toEqual({ x: expect.objectContaining({ type: 'int', default: 1 }) });
  });

  it('hides a draft from anyone but an administrator, exactly like a version that never existed', async () => {
    const name = await makeQuery(3, 2);
    const draft = await failure(resolveRunnable({ store }, name, 3, other));
    const missing = await failure(resolveRunnable({ store }, name, 9, other));
    expect(draft.code).toBe('version_not_found');
    expect(draft.status).toBe(404);
    expect(missing.code).toBe('version_not_found');
    expect(draft.message).toBe(missing.message.replace(/version 9$/, 'version 3'));
    expect((await resolveRunnable({ store }, name, 3, admin)).status).toBe('draft');
  });

  it('treats every version of an unpublished query as a draft', async () => {
    const name = await makeQuery(2, null);
    const none = await failure(resolveRunnable({ store }, name, undefined, admin));
    expect(none).toMatchObject({ code: 'query_not_found', status: 404 });
    expect(none.message).toMatch(/not found or not published/);
    expect((await failure(resolveRunnable({ store }, name, 1, other))).code).toBe('version_not_found');
    expect((await resolveRunnable({ store }, name, 1, admin)).version.version).toBe(1);
  });

  it('answers a key that does not reach the query like an unknown query, whatever version it asks', async () => {
    const name = await makeQuery(3, 2);
    for (const version of [undefined, 1, 2, 3, 9]) {
      expect((await failure(resolveRunnable({ store }, name, version, stranger))).code).toBe('query_not_found');
    }
  });

  it('answers query_not_found for an unknown query, asked with a version or not', async () => {
    expect((await failure(resolveRunnable({ store }, 'no_such_query', undefined, admin))).code).toBe('query_not_found');
    expect((await failure(resolveRunnable({ store }, 'no_such_query', 1, admin))).code).toBe('query_not_found');
  });

  it('parses the rules of a version once', async () => {
    const name = await makeQuery(1, 1);
    const a = await resolveRunnable({ store }, name, undefined, other);
    const b = await resolveRunnable({ store }, name, undefined, other);
    expect(b.rules).toBe(a.rules);
    // The cache is per version row: editing the stored row (never done: versions are immutable) is not seen.
    await store.db.update(queryVersions).set({ parameters: sql`'{}'::jsonb` }).where(eq(queryVersions.id, a.version.id));
    expect((await resolveRunnable({ store }, name, undefined, other)).rules).toBe(a.rules);
  });
});
