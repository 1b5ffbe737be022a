import type { CallerUsage } from '../../origin/access/usage.ts';
import type { RateLimiter } from '../../origin/access/rate-limit/limiter.ts';
import type { SignInVerifier } from '../../origin/access/jwt.ts';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseCache } from '../../origin/cache/response-cache.ts';
import type { StoreAvailability } from '../../origin/store/availability.ts';
import type { DriverRegistry } from '../../origin/drivers/registry.ts';
import { parseEnv } from '../../origin/env.ts';
import type { AppDeps } from '../../origin/deps.ts';
import { PrivilegeChecks } from '../../origin/services/connections/privilege-checks.ts';
import { ConnectionUsage } from '../../origin/services/connections/usage.ts';
import type { HistoryRecorder } from '../../origin/services/history/recorder.ts';
import { ensureExamples } from '../../origin/services/examples/ensure.ts';
import { type Store, openStore } from '../../origin/store/open.ts';
import { auditLog, connections, examplesState } from '../../origin/store/schema/index.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { unique } from '../harness/unique.ts';
import { TRACING_OFF } from '../../origin/observability/tracing/tracing.ts';

/**
 * The real origin with its store on a Postgres server (SLUICE_DATABASE_URL):
 * examples installed into the fresh database, connections managed and queried
 * over HTTP, and everything still there for a new origin on the same database.
 */

const API = '/api/v1/connections';
const at = (name: string) => `${API}/${encodeURIComponent(name)}`;

let database: FreshDatabase;
/** Owned here, so stopping an origin keeps it: the examples file lives in it. */
let dataDir: string;
let origin: Origin | undefined;

beforeAll(async () => {
  database = await freshDatabase();
  dataDir = await mkdtemp(join(tmpdir(), 'sluice-pgstore-'));
});

afterAll(async () => {
  await origin?.stop();
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const start = () => startOrigin({ template: false, dataDir, env: { SLUICE_DATABASE_URL: database.url } });

/** What the store holds, read straight from the Postgres database. */
async function inDatabase() {
  const store = await openStore({ databaseUrl: database.url, dataDir });
  try {
    return {
      connections: await store.db.select().from(connections).orderBy(asc(connections.id)),
      examples: await store.db.select().from(examplesState),
      audit: await store.db.select().from(auditLog).orderBy(asc(auditLog.seq)),
    };
  } finally {
    await store.close();
  }
}

const FILMS = 'select count(*) as n from films';

async function countFilms(o: Origin): Promise<number> {
  const res = await o.call('POST', '/execute_sql', { connection_name: 'examples', sql: FILMS });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toHaveLength(1);
  return Number(res.body[0].n);
}

describe('origin with SLUICE_DATABASE_URL', () => {
  const kept = unique('kept');
  const removed = unique('removed');
  let films: number;
  let keptEtag: string;

  it('starts on the fresh database and installs the examples there', async () => {
    origin = await start();
    expect(origin.logs.join('\n')).toMatch(/"store":"postgres"/);
    expect((await origin.call('GET', '/health')).status).toBe(200);
    // No embedded store was made: the metadata is on the server.
    expect(existsSync(join(dataDir, 'store'))).toBe(false);
    expect(existsSync(join(dataDir, 'examples.duckdb'))).toBe(true);

    const list = await origin.call('GET', API);
    expect(list.status).toBe(200);
    const examples = list.body.connections.find((c: any) => c.name === 'examples');
    expect(examples).toMatchObject({ name: 'examples', db: 'duckdb', example: true, database: 'examples.duckdb' });

    const stored = await inDatabase();
    expect(stored.connections.map((c) => c.name)).toEqual(['examples']);
    expect(stored.examples).toMatchObject([{ id: 'examples', status: 'dataset' }]);
    expect(stored.audit.map((e) => [e.seq, e.action, e.actor])).toEqual([[1, 'load_examples', 'system']]);
  });

  it('manages connections and runs SQL on the examples', async () => {
    const o = origin!;
    const made = await o.call('POST', API, { name: kept, db: 'duckdb', database: ':memory:' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    keptEtag = made.headers.get('etag')!;
    const patched = await o.call('PATCH', at(kept), { options: { note: 'patched' } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    keptEtag = patched.headers.get('etag')!;
    expect((await o.call('POST', API, { name: removed, db: 'duckdb' })).status).toBe(201);
    const deleted = await o.call('DELETE', at(removed), { reason: 'store test' });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);

    films = await countFilms(o);
    expect(films).toBe(40); // docs/reference/examples.md
    const onKept = await o.call('POST', '/execute_sql', { connection_name: kept, sql: 'select 42 as answer' });
    expect(onKept.status, JSON.stringify(onKept.body)).toBe(200);
    expect(onKept.body).toEqual([{ answer: 42 }]);

    const stored = await inDatabase();
    expect(stored.connections.map((c) => c.name)).toEqual(['examples', kept]);
    expect(stored.audit.map((e) => [e.seq, e.action, e.target])).toEqual([
      [1, 'load_examples', 'examples'],
      [2, 'create_connection', kept],
      [3, 'update_connection', kept],
      [4, 'create_connection', removed],
      [5, 'delete_connection', removed],
    ]);
  });

  it('a new origin on the same database keeps everything and does not reinstall the examples', async () => {
    await origin!.stop();
    origin = await start();
    const o = origin;

    const names = (await o.call('GET', API)).body.connections.map((c: any) => c.name);
    expect(names.sort()).toEqual(['examples', kept].sort());
    const read = await o.call('GET', at(kept));
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(keptEtag);
    expect(read.body).toMatchObject({ name: kept, db: 'duckdb', database: ':memory:', options: { note: 'patched' } });
    expect((await o.call('GET', at(removed))).status).toBe(404);

    const gone = (await o.call('GET', `${API}/deleted`)).body.connections;
    expect(gone.map((e: any) => e.name)).toEqual([removed]);
    expect(gone[0]).toMatchObject({ name: removed, reason: 'store test' });

    expect(await countFilms(o)).toBe(films);

    const stored = await inDatabase();
    expect(stored.audit.filter((e) => e.action === 'load_examples')).toHaveLength(1);
    expect(stored.audit.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(stored.connections.filter((c) => c.example)).toHaveLength(1);
    expect(stored.examples).toMatchObject([{ status: 'dataset' }]);

    // A change on the new origin continues the same chain.
    const again = unique('again');
    expect((await o.call('POST', API, { name: again, db: 'duckdb' })).status).toBe(201);
    const after = await inDatabase();
    expect(after.audit.at(-1)).toMatchObject({ seq: 6, action: 'create_connection', target: again });
    expect(after.connections.find((c) => c.name === again)).toBeDefined();
    const [row] = after.connections.filter((c) => c.name === kept);
    expect(row).toMatchObject({ revision: 2 });
    expect(after.connections.filter((c) => c.name === removed)).toEqual([]);
  });
});

/** Origins sharing a Postgres store, each with its own (possibly new) data dir. */
describe('origins sharing a Postgres store', () => {
  let db: FreshDatabase;
  let base: string;

  beforeAll(async () => {
    db = await freshDatabase();
    base = await mkdtemp(join(tmpdir(), 'sluice-pgstore-bugs-'));
  });
  afterAll(async () => {
    await db?.drop();
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('starts with a data dir that does not exist yet', async () => {
    const missing = join(base, 'not-created-yet');
    const o = await startOrigin({ template: false, dataDir: missing, env: { SLUICE_DATABASE_URL: db.url } });
    try {
      expect(await countFilms(o)).toBe(40);
    } finally {
      await o.stop();
    }
  });

  it('two origins starting together on a new store install the examples once, and both start', async () => {
    const shared = await freshDatabase();
    const stores: Store[] = [];
    try {
      const deps = async (name: string): Promise<AppDeps> => {
        const dataDir = await mkdtemp(join(base, `${name}-`));
        const store = await openStore({ databaseUrl: shared.url, dataDir });
        stores.push(store);
        return {
          env: parseEnv({ SLUICE_DATA_DIR: dataDir, SLUICE_DATABASE_URL: shared.url }),
          store,
          storeAvailability: {} as StoreAvailability,
          tracing: TRACING_OFF,
          drivers: {} as DriverRegistry,
          usage: new ConnectionUsage(),
          privileges: new PrivilegeChecks({ warn: () => {} }),
          callerUsage: {} as CallerUsage,
          rateLimiter: {} as RateLimiter,
          signIn: {} as SignInVerifier,
          history: {} as HistoryRecorder,
          cache: {} as ResponseCache,
          logger: pino({ level: 'silent' }),
          version: 'test',
        };
      };
      const [a, b] = await Promise.all([deps('a'), deps('b')]);
      const results = await Promise.allSettled([ensureExamples(a), ensureExamples(b)]);
      expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason).split('\n')[0])).toEqual([]);
      const audit = await stores[0].db.select().from(auditLog);
      expect(audit.filter((e) => e.action === 'load_examples')).toHaveLength(1);
      expect(await stores[0].db.select().from(connections)).toHaveLength(1);
    } finally {
      for (const store of stores) await store.close();
      await shared.drop();
    }
  });

  it('a second origin sharing the store with its own data dir can query the examples', async () => {
    const shared = await freshDatabase();
    const env = { SLUICE_DATABASE_URL: shared.url };
    try {
      const first = await startOrigin({ template: false, dataDir: await mkdtemp(join(base, 'first-')), env });
      await first.stop();
      const second = await startOrigin({ template: false, dataDir: await mkdtemp(join(base, 'second-')), env });
      try {
        expect(await countFilms(second)).toBe(40);
      } finally {
        await second.stop();
      }
    } finally {
      await shared.drop();
    }
  });
});
