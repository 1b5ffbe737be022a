import { createHash } from 'node:crypto';
import { desc, sql } from 'drizzle-orm';
import type { StoreDb } from '../store/open.ts';
import { auditLog } from '../store/schema/index.ts';
import { canonicalJson } from './canonical-json.ts';

export interface AuditEntryInput {
  actor: string;
  action: string;
  target: string;
  changes: Record<string, unknown>;
}

/** Any fixed number: one writer at a time appends to the chain, across every origin on the store. */
const AUDIT_LOCK = 7_311_002;

/**
 * Appends one entry to the hash chain inside the caller's transaction, so the
 * entry exists exactly when the change does. `hash = SHA-256(previous hash ||
 * canonical entry)`; the transaction-scoped advisory lock keeps `seq` gap-free
 * when several origins share one store.
 */
export async function recordAudit(tx: StoreDb, entry: AuditEntryInput): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${AUDIT_LOCK})`);
  const [last] = await tx.select({ seq: auditLog.seq, hash: auditLog.hash }).from(auditLog).orderBy(desc(auditLog.seq)).limit(1);
  const seq = (last?.seq ?? 0) + 1;
  const timestamp = new Date();
  const canonical = canonicalJson({ seq, timestamp: timestamp.toISOString(), ...entry });
  const hash = createHash('sha256')
    .update(last?.hash ?? '')
    .update(canonical)
    .digest('hex');
  await tx.insert(auditLog).values({ seq, timestamp, ...entry, hash });
}
