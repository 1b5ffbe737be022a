import { sql } from 'drizzle-orm';
import { setAuditVia } from '../../audit/via.ts';
import type { AppDeps } from '../../deps.ts';
import type { DriverRegistry } from '../../drivers/registry.ts';
import { type StoreDb, storeInTransaction } from '../../store/open.ts';
import { connectionCache } from '../connections/cache.ts';
import type { ConnectionUsage } from '../connections/usage.ts';
import { forgetQueryDefinitions } from '../queries/definition-cache.ts';

/** Any fixed number: one configuration apply at a time across every origin on the store. */
const CONFIG_LOCK = 7_311_020;

/**
 * Lets the event loop run, between the objects of an apply. On the embedded
 * store every statement completes as a promise without I/O, so a whole
 * apply would run as one chain of microtasks: no other request (not even
 * /health) would be answered until it ended.
 */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** How long an apply may hold the event loop before it gives way: well under what /health is allowed (100 ms). */
const TURN_MS = 10;

/**
 * A `nextTurn` taken only once TURN_MS have passed since the last one: an
 * object that needs no statement (unchanged) costs no turn of its own, and
 * one that needs many still lets other requests in after it.
 */
export function givingWay(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < TURN_MS) return;
    await nextTurn();
    since = performance.now();
  };
}

/** Thrown out of the transaction to roll it back with a result: a diff, a dry run. */
class Rollback<T> {
  constructor(readonly result: T) {}
}

/**
 * What the verbs do outside the store, held back until the transaction
 * commits (and dropped when it rolls back): closing a changed connection's
 * driver, forgetting a deleted connection's live usage.
 */
class HeldEffects {
  private readonly drivers = new Set<string>();
  private readonly usage = new Set<string>();

  constructor(private readonly deps: AppDeps) {}

  /** `deps` for verbs run on `tx`: the store is the transaction, the caches the store's own (invalidated, never filled). */
  depsOn(tx: StoreDb): AppDeps {
    const drivers = Object.assign(Object.create(this.deps.drivers) as DriverRegistry, {
      drop: async (name: string) => void this.drivers.add(name),
    });
    const usage = Object.assign(Object.create(this.deps.usage) as ConnectionUsage, {
      forget: (name: string) => void this.usage.add(name),
    });
    return { ...this.deps, store: storeInTransaction(this.deps.store, tx), drivers, usage };
  }

  async release(): Promise<void> {
    for (const name of this.usage) this.deps.usage.forget(name);
    await Promise.all([...this.drivers].map((name) => this.deps.drivers.drop(name)));
  }
}

/**
 * Runs `work` in one store transaction for a whole configuration apply:
 * applies are serialised by an advisory lock, every audit entry recorded
 * inside carries `via: config`, and the transaction commits only when `work`
 * says so. `work` gets deps on the transaction and `savepoint`, which runs a
 * step on deps of a savepoint of its own, so a refused step leaves the rest
 * usable. Once it ends, committed or not, this origin's connection and
 * definition caches are emptied: the verbs invalidated names before the
 * commit, when another request could still read and keep the old rows.
 */
export async function inApplyTransaction<T>(
  deps: AppDeps,
  work: (txDeps: AppDeps, savepoint: <R>(step: (stepDeps: AppDeps) => Promise<R>) => Promise<R>) => Promise<{ result: T; commit: boolean }>,
): Promise<T> {
  const effects = new HeldEffects(deps);
  try {
    const result = await deps.store.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${CONFIG_LOCK})`);
      await setAuditVia(tx, 'config');
      const savepoint = <R>(step: (stepDeps: AppDeps) => Promise<R>) => tx.transaction((sp) => step(effects.depsOn(sp)));
      const outcome = await work(effects.depsOn(tx), savepoint);
      if (!outcome.commit) throw new Rollback(outcome.result);
      return outcome.result;
    });
    await effects.release();
    return result;
  } catch (err) {
    if (err instanceof Rollback) return err.result as T;
    throw err;
  } finally {
    connectionCache(deps.store).reset();
    forgetQueryDefinitions(deps.store);
  }
}
