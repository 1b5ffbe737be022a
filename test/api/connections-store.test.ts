import type { CallerUsage } from '../../origin/access/usage.ts';
import type { RateLimiter } from '../../origin/access/rate-limit/limiter.ts';
import type { SignInVerifier } from '../../origin/access/jwt.ts';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { asc, eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseCache } from '../../origin/cache/response-cache.ts';
import type { StoreAvailability } from '../../origin/store/availability.ts';
import type { DriverRegistry } from '../../origin/drivers/registry.ts';
import { parseEnv } from '../../origin/env.ts';
import type { AppDeps } from '../../origin/deps.ts';
import { createConnection } from '../../origin/services/connections/create.ts';
import { PrivilegeChecks } from '../../origin/services/connections/privilege-checks.ts';
import { ConnectionUsage } from '../../origin/services/connections/usage.ts';
import type { HistoryRecorder } from '../../origin/services/history/recorder.ts';
import { type Store, type StoreDb, openStore } from '../../origin/store/open.ts';
import { auditLog, connections, deletedConnections } from '../../origin/store/schema/index.ts';
import { type Origin, startOrigin, templateDir } from '../harness/origin.ts';
import { PG, tempDir } from './connections-fixtures.ts';
import { unique } from '../harness/unique.ts';
import { TRACING_OFF } from '../../origin/observability/tracing/tracing.ts';

/**
 * What connections leave in the store: they survive a restart, each change
 * wrote exactly one audit entry in its own transaction (a failed change none),
 * passwords are never audit values, and `${VAR}` references are stored as written.
 */

const API = '/api/v1/connections';
const at = (name: string) => `${API}/${encodeURIComponent(name)}`;
const KEY = 'test-admin-key-0123456789';
const auth = { 'x-api-key': KEY };

let tmp: Awaited<ReturnType<typeof tempDir>>;
let dataDir: string;
let origin: Origin | undefined;

beforeAll(async () => {
  tmp = await tempDir();
  dataDir = join(tmp.dir, 'data');
  await cp(templateDir(), dataDir, { recursive: true });
});

afterAll(async () => {
  await origin?.stop();
  await tmp?.remove();
});

const literalName = unique('kept');
const referenceName = unique('ref');
const deletedName = unique('removed');
const LITERAL_1 = unique('First-Literal');
const LITERAL_2 = unique('Second-Literal');
const DELETED_SECRET = unique('Deleted-Literal');

describe('persistence and audit', () => {
  let etagBefore: string;

  it('serves the Management API to the admin key only', async () => {
    origin = await startOrigin({ dataDir, env: { SLUICE_API_KEY: KEY } });
    expect((await origin.call('GET', API)).status).toBe(401);
    expect((await origin.call('GET', API, undefined, { 'x-api-key': 'wrong' })).status).toBe(401);
    expect((await origin.call('GET', API, undefined, auth)).status).toBe(200);
  });

  it('makes changes, some of which fail', async () => {
    const o = origin!;
    const pg = { db: 'postgres', host: PG.host, port: PG.port, user: PG.user, database: PG.database };
    expect((await o.call('POST', API, { name: literalName, ...pg, password: LITERAL_1 }, auth)).status).toBe(201);
    expect((await o.call('POST', API, { name: referenceName, ...pg, password: '${SLUICE_REF_T_STORE_PW}' }, auth)).status).toBe(201);
    expect((await o.call('POST', API, { name: deletedName, ...pg, password: DELETED_SECRET }, auth)).status).toBe(201);
    // Failures: taken name, bad name, missing host, stale If-Match, no reason.
    expect((await o.call('POST', API, { name: literalName, db: 'duckdb' }, auth)).status).toBe(409);
    expect((await o.call('POST', API, { name: 'bad/name', db: 'duckdb' }, auth)).status).toBe(400);
    expect((await o.call('POST', API, { name: unique('nohost'), db: 'postgres' }, auth)).status).toBe(400);
    expect((await o.call('PATCH', at(literalName), { port: 1 }, { ...auth, 'if-match': '"c0.0"' })).status).toBe(412);
    expect((await o.call('DELETE', at(deletedName), {}, auth)).status).toBe(400);
    // Changes: a password and a port; a mask (no change at all); a delete.
    const patched = await o.call('PATCH', at(literalName), { password: LITERAL_2, port: 5433 }, auth);
    expect(patched.status).toBe(200);
    expect((await o.call('PATCH', at(literalName), { password: '********' }, auth)).status).toBe(200);
    const deleted = await o.call('DELETE', at(deletedName), { reason: 'audit test' }, auth);
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted_by).toBe('admin');
    etagBefore = (await o.call('GET', at(literalName), undefined, auth)).headers.get('etag')!;
  });

  it('keeps everything across a restart on the same data dir', async () => {
    await origin!.stop();
    origin = await startOrigin({ dataDir, env: { SLUICE_API_KEY: KEY } });
    const list = await origin.call('GET', API, undefined, auth);
    const names = list.body.connections.map((c: any) => c.name);
    expect(names).toEqual(expect.arrayContaining([literalName, referenceName]));
    expect(names).not.toContain(deletedName);
    const read = await origin.call('GET', at(literalName), undefined, auth);
    expect(read.headers.get('etag')).toBe(etagBefore);
    expect(read.body).toMatchObject({ port: 5433, password: '********' });
    expect((await origin.call('GET', at(referenceName), undefined, auth)).body.password).toBe('${SLUICE_REF_T_STORE_PW}');
    const gone = (await origin.call('GET', `${API}/deleted`, undefined, auth)).body.connections;
    expect(gone.find((e: any) => e.name === deletedName)).toMatchObject({ deleted_by: 'admin', reason: 'audit test' });
    await origin.stop();
    origin = undefined;
  });

  it('wrote one audit entry per change, passwords never as values', async () => {
    const store = await openStore({ dataDir });
    try {
      const targets = [literalName, referenceName, deletedName];
      const entries = (await store.db.select().from(auditLog).orderBy(asc(auditLog.seq))).filter((e) => targets.includes(e.target));
      expect(entries.map((e) => [e.action, e.target])).toEqual([
        ['create_connection', literalName],
        ['create_connection', referenceName],
        ['create_connection', deletedName],
        ['update_connection', literalName],
        ['delete_connection', deletedName],
      ]);
      for (const entry of entries) expect(entry.actor).toBe('admin');
      const text = JSON.stringify(entries);
      for (const secret of [LITERAL_1, LITERAL_2, DELETED_SECRET]) expect(text).not.toContain(secret);

      const [created, reference, , updated, removed] = entries;
      expect(created.changes).toMatchObject({ name: literalName, db: 'postgres', host: PG.host, user: PG.user, password: '********', active: true });
      expect(reference.changes.password).toBe('********');
      expect(updated.changes).toEqual({ password: 'changed', port: { from: PG.port, to: 5433 } });
      expect(removed.changes).toMatchObject({ name: deletedName, password: '********', reason: 'audit test' });

      // The chain is gap-free.
      const seqs = (await store.db.select({ seq: auditLog.seq }).from(auditLog).orderBy(asc(auditLog.seq))).map((r) => r.seq);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));

      // Stored as written: the literal as sent, the reference never expanded.
      const [literalRow] = await store.db.select().from(connections).where(eq(connections.name, literalName));
      expect(literalRow.password).toBe(LITERAL_2);
      expect(literalRow.revision).toBe(2);
      const [referenceRow] = await store.db.select().from(connections).where(eq(connections.name, referenceName));
      expect(referenceRow.password).toBe('${SLUICE_REF_T_STORE_PW}');
      const [deletedRow] = await store.db.select().from(deletedConnections).where(eq(deletedConnections.name, deletedName));
      expect(deletedRow.snapshot.password).toBe('********');
      expect(JSON.stringify(deletedRow.snapshot)).not.toContain(DELETED_SECRET);
    } finally {
      await store.close();
    }
  });
});

describe('transactions', () => {
  /** The store, with the transaction's audit insert made to fail right after it ran. */
  function failingAfterAudit(store: Store): Store {
    const wrapTx = (tx: StoreDb): StoreDb =>
      new Proxy(tx, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target);
          if (prop !== 'insert') return typeof value === 'function' ? value.bind(target) : value;
          return (table: unknown) => {
            const builder = target.insert(table as typeof auditLog);
            if (table !== auditLog) return builder;
            return {
              values: (row: any) => ({
                then: (resolve: any, reject: any) =>
                  builder.values(row).then(() => {
                    throw new Error('injected failure after the audit insert');
                  }).then(resolve, reject),
              }),
            };
          };
        },
      });
    const db = new Proxy(store.db, {
      get(target, prop) {
        if (prop === 'transaction') {
          return (run: (tx: StoreDb) => Promise<unknown>) => target.transaction((tx) => run(wrapTx(tx as unknown as StoreDb)));
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { ...store, db };
  }

  it('a create that fails after writing its audit entry leaves neither the row nor the entry', async () => {
    const dir = await tempDir();
    await cp(templateDir(), dir.dir, { recursive: true });
    const store = await openStore({ dataDir: dir.dir });
    const drops: string[] = [];
    const deps = (s: Store): AppDeps => ({
      env: parseEnv({ SLUICE_DATA_DIR: dir.dir }),
      store: s,
      storeAvailability: {} as StoreAvailability,
      tracing: TRACING_OFF,
      drivers: { drop: (name: string) => void drops.push(name) } as unknown as DriverRegistry,
      usage: new ConnectionUsage(),
      privileges: new PrivilegeChecks({ warn: () => {} }),
      callerUsage: {} as CallerUsage,
      rateLimiter: {} as RateLimiter,
      signIn: {} as SignInVerifier,
      history: {} as HistoryRecorder,
      cache: {} as ResponseCache,
      logger: pino({ level: 'silent' }),
      version: 'test',
    });
    const actor = { name: 'tester', admin: true, via: 'break-glass' as const };
    try {
      const name = unique('atomic');
      await expect(createConnection(deps(failingAfterAudit(store)), actor, { name, db: 'duckdb' })).rejects.toThrow(/injected/);
      expect(await store.db.select().from(connections).where(eq(connections.name, name))).toHaveLength(0);
      expect(await store.db.select().from(auditLog).where(eq(auditLog.target, name))).toHaveLength(0);
      expect(drops).toEqual([]);

      // The same verb on the plain store commits both.
      const made = await createConnection(deps(store), actor, { name, db: 'duckdb' });
      expect(made.connection.name).toBe(name);
      expect(await store.db.select().from(connections).where(eq(connections.name, name))).toHaveLength(1);
      const audit = await store.db.select().from(auditLog).where(eq(auditLog.target, name));
      expect(audit.map((e) => [e.action, e.actor])).toEqual([['create_connection', 'tester']]);
      expect(drops).toEqual([name]);
    } finally {
      await store.close();
      await dir.remove();
    }
  });
});
