import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { StoreDb } from '../../store/open.ts';
import { auditDelivery } from '../../store/schema/index.ts';

/** How long a lease lasts without renewal: an origin that stops delivering hands over after this. */
export const LEASE_SECONDS = 30;

const leaseEnd = sql`now() + make_interval(secs => ${LEASE_SECONDS})`;

/**
 * Takes or renews the lease on an output for `instance`, on the store's clock.
 * Returns the delivered seq, or null while another instance holds an
 * unexpired lease. A changed target starts over from seq 0: a new file or
 * URL gets every entry still kept.
 */
export async function claimLease(db: StoreDb, output: string, target: string, instance: string): Promise<number | null> {
  const sameTarget = sql`${auditDelivery.target} = excluded.target`;
  const [row] = await db
    .insert(auditDelivery)
    .values({ output, target, deliveredSeq: 0, instance, leaseExpiresAt: leaseEnd })
    .onConflictDoUpdate({
      target: auditDelivery.output,
      set: {
        instance,
        target,
        leaseExpiresAt: leaseEnd,
        deliveredSeq: sql`case when ${sameTarget} then ${auditDelivery.deliveredSeq} else 0 end`,
        skipped: sql`case when ${sameTarget} then ${auditDelivery.skipped} else 0 end`,
      },
      setWhere: or(
        eq(auditDelivery.instance, instance),
        isNull(auditDelivery.instance),
        isNull(auditDelivery.leaseExpiresAt),
        lt(auditDelivery.leaseExpiresAt, sql`now()`),
      ),
    })
    .returning({ deliveredSeq: auditDelivery.deliveredSeq });
  return row ? row.deliveredSeq : null;
}

/** Records delivery up to `seq` (and entries retention removed first); false when the lease was lost meanwhile. */
export async function recordDelivered(db: StoreDb, output: string, instance: string, seq: number, skipped: number): Promise<boolean> {
  const rows = await db
    .update(auditDelivery)
    .set({
      deliveredSeq: seq,
      skipped: sql`${auditDelivery.skipped} + ${skipped}`,
      lastError: null,
      lastErrorAt: null,
      lastDeliveredAt: sql`now()`,
      leaseExpiresAt: leaseEnd,
    })
    .where(and(eq(auditDelivery.output, output), eq(auditDelivery.instance, instance)))
    .returning({ output: auditDelivery.output });
  return rows.length > 0;
}

export async function recordFailure(db: StoreDb, output: string, instance: string, message: string): Promise<void> {
  await db
    .update(auditDelivery)
    .set({ lastError: message, lastErrorAt: sql`now()` })
    .where(and(eq(auditDelivery.output, output), eq(auditDelivery.instance, instance)));
}

/** Gives the lease up at shutdown so another origin takes over at once. */
export async function releaseLease(db: StoreDb, output: string, instance: string): Promise<void> {
  await db
    .update(auditDelivery)
    .set({ leaseExpiresAt: null })
    .where(and(eq(auditDelivery.output, output), eq(auditDelivery.instance, instance)));
}
