import { asc, count, gt, max, sql } from 'drizzle-orm';
import type { StoreDb } from '../../store/open.ts';
import { auditDelivery, auditLog } from '../../store/schema/index.ts';
import { formatDate } from '../../time.ts';
import type { AuditOutput } from './outputs.ts';

export interface OutputStatus {
  output: string;
  target: string;
  /** Configured on this origin (an output another origin delivers to is listed from the store). */
  configured: boolean;
  delivered_seq: number;
  /** Entries kept in the log that the output has not received. */
  behind: number;
  /** Entries retention removed before they were delivered. */
  skipped: number;
  last_error: string | null;
  last_error_at: string | null;
  last_delivered_at: string | null;
  /** The origin holding the lease (`host:pid`), or null when none holds a live one. */
  instance: string | null;
}

const time = (value: Date | null) => (value === null ? null : formatDate(value));

/** `GET /api/v1/audit/delivery`: progress of every output this origin configures or the store knows. */
export async function deliveryStatus(db: StoreDb, outputs: AuditOutput[]): Promise<{ last_seq: number | null; outputs: OutputStatus[] }> {
  const rows = await db
    .select({ row: auditDelivery, live: sql<boolean>`coalesce(${auditDelivery.leaseExpiresAt} > now(), false)` })
    .from(auditDelivery)
    .orderBy(asc(auditDelivery.output));
  const [{ last }] = await db.select({ last: max(auditLog.seq) }).from(auditLog);
  const names = [...new Set([...outputs.map((o) => o.name), ...rows.map((r) => r.row.output)])].sort();
  const statuses: OutputStatus[] = [];
  for (const name of names) {
    const stored = rows.find((r) => r.row.output === name);
    const configured = outputs.find((o) => o.name === name);
    const delivered = stored?.row.deliveredSeq ?? 0;
    const [{ behind }] = await db.select({ behind: count() }).from(auditLog).where(gt(auditLog.seq, delivered));
    statuses.push({
      output: name,
      target: stored?.row.target ?? configured!.target,
      configured: configured !== undefined,
      delivered_seq: delivered,
      behind,
      skipped: stored?.row.skipped ?? 0,
      last_error: stored?.row.lastError ?? null,
      last_error_at: time(stored?.row.lastErrorAt ?? null),
      last_delivered_at: time(stored?.row.lastDeliveredAt ?? null),
      instance: stored?.live ? stored.row.instance : null,
    });
  }
  return { last_seq: last === null ? null : Number(last), outputs: statuses };
}
