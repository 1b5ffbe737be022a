import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { periodEnd, periodKey } from '../../../origin/access/periods.ts';
import { CallerUsage, periodUsage } from '../../../origin/access/usage.ts';
import { SluiceError } from '../../../origin/errors.ts';
import { type Store, openStore } from '../../../origin/store/open.ts';
import { usageCounters } from '../../../origin/store/schema/index.ts';
import { type KeyGrants, emptyGrants } from '../../../shared/access/grants.ts';
import { templateDir } from '../../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../../harness/postgres-store.ts';

/**
 * Per-caller usage on a real store: quotas exact under bursts (also for
 * origins sharing one Postgres store), max_concurrent per origin, batched
 * counters, live counts.
 */

const logger = pino({ level: 'silent' });
let seq = 0;
const keyCaller = (grants: Partial<KeyGrants>) => {
  const name = `usage-${process.pid}-${++seq}`;
  return { name, key: { id: 1000 + seq, name, workspace: 'default', grants: { ...emptyGrants(), ...grants } } };
};

/** Settles every admission, returning how many were let through and the errors of the rest. */
async function burst(usage: CallerUsage[], caller: ReturnType<typeof keyCaller>, n: number) {
  const outcomes = await Promise.allSettled(Array.from({ length: n }, (_, i) => usage[i % usage.length].admit(caller)));
  const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => o.reason as SluiceError);
  return { admitted: n - refused.length, refused };
}

const stored = async (store: Store, caller: string, period: string) =>
  (await store.db.select().from(usageCounters).where(and(eq(usageCounters.caller, caller), eq(usageCounters.period, period))))[0] ?? null;

describe('CallerUsage on the embedded store', () => {
  let dir: string;
  let store: Store;
  let usage: CallerUsage;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sluice-usage-'));
    await cp(templateDir(), dir, { recursive: true });
    store = await openStore({ dataDir: dir });
    usage = new CallerUsage(store, { logger, flushIntervalMs: 60_000 });
  });

  afterAll(async () => {
    await usage?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lets exactly the quota through a burst, then answers 429 with the seconds to the period end', async () => {
    const caller = keyCaller({ quota: '10/day' });
    const { admitted, refused } = await burst([usage], caller, 30);
    expect(admitted).toBe(10);
    expect(refused).toHaveLength(20);
    const now = Date.now();
    for (const err of refused) {
      expect(err).toBeInstanceOf(SluiceError);
      expect(err.status).toBe(429);
      expect(err.message).toBe('Quota exceeded for this API key');
      const retry = err.extras.retry_after as number;
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(Math.ceil((periodEnd('day', now) - now) / 1000) + 1);
    }
    // The quota row is written at once; refused calls are not counted.
    expect(await stored(store, caller.name, periodKey('day', now))).toMatchObject({ calls: 10 });
    expect(await periodUsage(store, caller.name, 'day')).toEqual({ calls: 10, rows: 0, db_seconds: 0 });
    // The other period's calls wait for the next flush, and are read meanwhile.
    expect(await stored(store, caller.name, periodKey('month', now))).toBeNull();
    expect(await periodUsage(store, caller.name, 'month')).toEqual({ calls: 10, rows: 0, db_seconds: 0 });
    await usage.flush();
    expect(await stored(store, caller.name, periodKey('month', now))).toMatchObject({ calls: 10 });
    expect(await periodUsage(store, caller.name, 'month')).toEqual({ calls: 10, rows: 0, db_seconds: 0 });
  });

  it('counts a monthly quota on the month row', async () => {
    const caller = keyCaller({ quota: '3/month' });
    expect((await burst([usage], caller, 5)).admitted).toBe(3);
    expect(await stored(store, caller.name, periodKey('month', Date.now()))).toMatchObject({ calls: 3 });
  });

  it('holds a key to max_concurrent admissions until they are released, once each', async () => {
    const caller = keyCaller({ max_concurrent: 2 });
    const first = await usage.admit(caller);
    const second = await usage.admit(caller);
    await expect(usage.admit(caller)).rejects.toMatchObject({ status: 429, message: 'Too many concurrent requests for this API key' });
    first.release();
    first.release();
    expect(usage.runningFor(caller.key.id)).toBe(1);
    const third = await usage.admit(caller);
    await expect(usage.admit(caller)).rejects.toMatchObject({ status: 429 });
    second.release();
    third.release();
    expect(usage.runningFor(caller.key.id)).toBe(0);
  });

  it('gives a refused quota call its concurrency place back', async () => {
    const caller = keyCaller({ quota: '1/day', max_concurrent: 1 });
    (await usage.admit(caller)).release();
    await expect(usage.admit(caller)).rejects.toMatchObject({ message: 'Quota exceeded for this API key' });
    expect(usage.runningFor(caller.key.id)).toBe(0);
  });

  it('refuses a key whose day budget is spent, writing its runs as they end and announcing the spend once', async () => {
    let announced = 0;
    const budgeted = new CallerUsage(store, { logger, flushIntervalMs: 60_000, onBudgetSpent: () => announced++ });
    const caller = keyCaller({ budget: { max_estimated_rows: null, rows_per_day: 100, db_seconds_per_day: 2 } });
    const day = () => stored(store, caller.name, periodKey('day', Date.now()));
    const first = await budgeted.admit(caller);
    expect(first.budget).toEqual({ rows: 100, db_seconds: 2 });
    first.release();
    budgeted.recordRun({ time: new Date(), keyName: caller.name, status: 'success', rows: 60, durationMs: 500, serializationMs: 100 });
    // Written as the run ends, not with the batch a minute later.
    await vi.waitFor(async () => expect(await day()).toMatchObject({ rows: 60, dbMs: 400 }));
    const second = await budgeted.admit(caller);
    expect(second.budget).toEqual({ rows: 40, db_seconds: 1.6 });
    second.release();
    // A run that starts under budget is never cut: it may pass the limit.
    budgeted.recordRun({ time: new Date(), keyName: caller.name, status: 'success', rows: 50, durationMs: 100, serializationMs: null });
    await vi.waitFor(() => expect(announced).toBe(1));
    const now = Date.now();
    const refusal = (await budgeted.admit(caller).catch((err: unknown) => err)) as SluiceError;
    expect(refusal).toMatchObject({ code: 'budget_exhausted', status: 429, extras: { code: 'budget_exhausted', budget: 'rows_per_day', spent: 110, limit: 100 } });
    expect(Math.abs((refusal.extras.retry_after as number) - (periodEnd('day', now) - now) / 1000)).toBeLessThan(3);
    await expect(budgeted.admit(caller)).rejects.toMatchObject({ code: 'budget_exhausted' });
    expect(announced).toBe(1);
    expect(budgeted.runningFor(caller.key.id)).toBe(0);
    await budgeted.close();
  });

  it("reads a budgeted key's day from the store at most every quarter second, counting its own runs at once", async () => {
    const reads = { n: 0 };
    const counted = new Proxy(store.db, {
      get(target, prop, receiver) {
        if (prop === 'select') reads.n += 1;
        return Reflect.get(target, prop, receiver);
      },
    });
    let clock = Date.now();
    const budgeted = new CallerUsage({ db: counted } as Store, { logger, flushIntervalMs: 60_000, now: () => clock });
    const caller = keyCaller({ budget: { max_estimated_rows: null, rows_per_day: 100, db_seconds_per_day: null } });
    expect((await budgeted.admit(caller)).budget).toEqual({ rows: 100, db_seconds: null });
    expect(reads.n).toBe(1);
    budgeted.recordRun({ time: new Date(clock), keyName: caller.name, status: 'success', rows: 30, durationMs: 2, serializationMs: null });
    // Counted before it is written, and written without a read.
    expect((await budgeted.admit(caller)).budget).toEqual({ rows: 70, db_seconds: null });
    await vi.waitFor(async () => expect(await stored(store, caller.name, periodKey('day', clock))).toMatchObject({ rows: 30 }));
    expect((await budgeted.admit(caller)).budget).toEqual({ rows: 70, db_seconds: null });
    expect(reads.n).toBe(1);
    // Another origin's runs, seen once the figures are a quarter second old.
    await store.db.update(usageCounters).set({ rows: 90 }).where(and(eq(usageCounters.caller, caller.name), eq(usageCounters.period, periodKey('day', clock))));
    expect((await budgeted.admit(caller)).budget).toEqual({ rows: 70, db_seconds: null });
    clock += 300;
    expect((await budgeted.admit(caller)).budget).toEqual({ rows: 10, db_seconds: null });
    expect(reads.n).toBe(2);
    await budgeted.close();
  });

  it('refuses a key whose database seconds are spent', async () => {
    const budgeted = new CallerUsage(store, { logger, flushIntervalMs: 60_000 });
    const caller = keyCaller({ budget: { max_estimated_rows: null, rows_per_day: null, db_seconds_per_day: 0.5 } });
    (await budgeted.admit(caller)).release();
    budgeted.recordRun({ time: new Date(), keyName: caller.name, status: 'error', rows: 0, durationMs: 650, serializationMs: null });
    await vi.waitFor(async () => expect(await budgeted.admit(caller).catch((err: SluiceError) => err.extras)).toMatchObject({ budget: 'db_seconds_per_day', spent: 0.65, limit: 0.5 }));
    await budgeted.close();
  });

  it('counts calls of callers without limits in batches, and rows, errors and database time (less serialisation) of finished runs', async () => {
    const name = `plain-${process.pid}`;
    for (let i = 0; i < 4; i++) (await usage.admit({ name })).release();
    usage.recordRun({ time: new Date(), keyName: name, status: 'success', rows: 7, durationMs: 40, serializationMs: 10 });
    usage.recordRun({ time: new Date(), keyName: name, status: 'error', rows: 0, durationMs: 5, serializationMs: null });
    usage.recordRun({ time: new Date(), keyName: null, status: 'success', rows: 100, durationMs: 1, serializationMs: null });
    expect(usage.live(name)).toEqual({ queries: 2, errors: 1, rows: 7 });
    expect(usage.live('nobody')).toEqual({ queries: 0, errors: 0, rows: 0 });
    expect(await stored(store, name, periodKey('day', Date.now()))).toBeNull();
    expect(await periodUsage(store, name, 'day')).toEqual({ calls: 4, rows: 7, db_seconds: 0.035 });
    await usage.flush();
    expect(await stored(store, name, periodKey('day', Date.now()))).toMatchObject({ calls: 4, rows: 7, dbMs: 35 });
    expect(await periodUsage(store, name, 'month', new Date())).toEqual({ calls: 4, rows: 7, db_seconds: 0.035 });
  });

  it('keeps counts the store refused, one row a caller and period, and writes them later', async () => {
    const state = { failing: true };
    const db = new Proxy(store.db, {
      get(target, prop, receiver) {
        if (prop === 'insert' && state.failing) {
          return () => {
            throw new Error('store unavailable');
          };
        }
        return Reflect.get(target, prop, receiver);
      },
    });
    const now = Date.now();
    const refused = new CallerUsage({ db }, { logger, flushIntervalMs: 60_000, now: () => now });
    const name = `refused-${process.pid}`;
    (await refused.admit({ name })).release();
    await refused.flush();
    expect(refused.unwritten(name, periodKey('day', now))).toEqual({ calls: 1, rows: 0, db_seconds: 0 });
    (await refused.admit({ name })).release();
    expect(refused.unwrittenAll().filter((d) => d.caller === name)).toEqual([
      { caller: name, period: periodKey('day', now), calls: 2, rows: 0, dbMs: 0 },
      { caller: name, period: periodKey('month', now), calls: 2, rows: 0, dbMs: 0 },
    ]);
    state.failing = false;
    await refused.close();
    expect(refused.unwrittenAll()).toEqual([]);
    expect(await stored(store, name, periodKey('day', now))).toMatchObject({ calls: 2, rows: 0 });
  });
});

describe('CallerUsage on a shared Postgres store', () => {
  let database: FreshDatabase;
  const stores: Store[] = [];
  const usages: CallerUsage[] = [];
  let base: string;

  beforeAll(async () => {
    database = await freshDatabase();
    base = await mkdtemp(join(tmpdir(), 'sluice-usage-pg-'));
    for (const name of ['a', 'b']) {
      const store = await openStore({ databaseUrl: database.url, dataDir: join(base, name) });
      stores.push(store);
      usages.push(new CallerUsage(store, { logger, flushIntervalMs: 50 }));
    }
  });

  afterAll(async () => {
    for (const usage of usages) await usage.close();
    for (const store of stores) await store.close();
    await database?.drop();
    await rm(base, { recursive: true, force: true });
  });

  it('lets exactly the quota through a burst spread over two origins', async () => {
    const caller = keyCaller({ quota: '10/day' });
    const { admitted, refused } = await burst(usages, caller, 40);
    expect(admitted).toBe(10);
    expect(refused.every((err) => err.status === 429)).toBe(true);
    expect(await stored(stores[0], caller.name, periodKey('day', Date.now()))).toMatchObject({ calls: 10 });
  });

  it("refuses a key on one origin once its budget was spent through the other", async () => {
    const caller = keyCaller({ budget: { max_estimated_rows: null, rows_per_day: 10, db_seconds_per_day: null } });
    (await usages[0].admit(caller)).release();
    (await usages[1].admit(caller)).release();
    usages[0].recordRun({ time: new Date(), keyName: caller.name, status: 'success', rows: 10, durationMs: 1, serializationMs: null });
    await vi.waitFor(async () => expect(await usages[1].admit(caller).catch((err: SluiceError) => err.code)).toBe('budget_exhausted'));
  });

  it('adds the batched counts of both origins', async () => {
    const name = `shared-${process.pid}`;
    for (const usage of usages) for (let i = 0; i < 3; i++) (await usage.admit({ name })).release();
    await Promise.all(usages.map((u) => u.flush()));
    expect(await stored(stores[1], name, periodKey('month', Date.now()))).toMatchObject({ calls: 6 });
  });
});
