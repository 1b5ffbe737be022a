import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { SluiceError } from '../../errors.ts';
import type { StoreDb } from '../../store/open.ts';
import { exportRuns, exports } from '../../store/schema/index.ts';

/**
 * One run of an export at a time, across every origin on the store: a run
 * holds a lease on the export's row (holder, expiry, fencing number), taken
 * only when none is held or the last one expired, and renewed while the run
 * is alive. A holder that dies loses it at expiry. Taking the lease bumps the
 * fencing number, and a run moves the watermark only while the number is
 * still its own (checked in the same transaction), so a late writer whose
 * lease was taken over changes nothing.
 */

export interface Lease {
  exportId: number;
  fence: number;
}

/** 409 `export_running` with `retry_after` (seconds until the lease expires unless renewed). */
export function exportRunning(name: string, retryAfter: number): SluiceError {
  return new SluiceError('export_running', `Export "${name}" is running; try again in ${retryAfter} s`, { retry_after: retryAfter });
}

const STOPPED = 'The run stopped before it finished (its origin went away; its lease expired)';

/**
 * Takes the lease on `exportId` for `seconds`, in `tx`: the fencing number,
 * or null with the seconds until the holder's lease expires. Runs left
 * `running` by a holder whose lease expired are marked failed here.
 */
export async function takeLease(tx: StoreDb, exportId: number, holder: string, seconds: number): Promise<{ fence: number } | { retryAfter: number }> {
  const [taken] = await tx
    .update(exports)
    .set({ leaseHolder: holder, leaseExpires: sql`now() + make_interval(secs => ${seconds})`, leaseFence: sql`${exports.leaseFence} + 1` })
    .where(and(eq(exports.id, exportId), or(isNull(exports.leaseExpires), lt(exports.leaseExpires, sql`now()`))))
    .returning({ fence: exports.leaseFence, name: exports.name });
  if (!taken) {
    const [held] = await tx
      .select({ left: sql<number>`greatest(1, ceil(extract(epoch from ${exports.leaseExpires} - now())))::int` })
      .from(exports)
      .where(eq(exports.id, exportId));
    return { retryAfter: held?.left ?? 1 };
  }
  await tx
    .update(exportRuns)
    .set({ status: 'error', error: STOPPED, finishedAt: sql`now()` })
    .where(and(eq(exportRuns.export, taken.name), eq(exportRuns.status, 'running')));
  return { fence: taken.fence };
}

/** Extends a held lease; false once it was taken over (or the export is gone): the run must stop. */
export async function renewLease(db: StoreDb, lease: Lease, seconds: number): Promise<boolean> {
  const renewed = await db
    .update(exports)
    .set({ leaseExpires: sql`now() + make_interval(secs => ${seconds})` })
    .where(and(eq(exports.id, lease.exportId), eq(exports.leaseFence, lease.fence)))
    .returning({ id: exports.id });
  return renewed.length > 0;
}

/**
 * Locks the export's row in `tx` and tells whether the lease is still this
 * run's; if so it is released (the caller then writes its outcome in `tx`).
 */
export async function releaseLease(tx: StoreDb, lease: Lease): Promise<boolean> {
  const [row] = await tx.select({ fence: exports.leaseFence }).from(exports).where(eq(exports.id, lease.exportId)).for('update');
  if (!row || row.fence !== lease.fence) return false;
  await tx.update(exports).set({ leaseHolder: null, leaseExpires: null }).where(eq(exports.id, lease.exportId));
  return true;
}
