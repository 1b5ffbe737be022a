import { lte, sql } from 'drizzle-orm';
import type { StoreDb } from '../store/open.ts';
import { rowsOf } from '../store/raw-rows.ts';
import { auditAnchor, auditLog } from '../store/schema/index.ts';
import { canonicalEntry, chainHead, entryHash } from './chain.ts';
import { auditOptions } from './options.ts';
import { redactChanges } from './redact.ts';
import { AUDIT_VIA_SETTING } from './via.ts';

export interface AuditEntryInput {
  actor: string;
  action: string;
  target: string;
  /** The workspace of the object the entry is about; null for a server-wide entry (docs/reference/audit.md). */
  workspace: string | null;
  changes: Record<string, unknown>;
}

/** Any fixed number: one writer at a time appends to the chain, across every origin on the store. */
const AUDIT_LOCK = 7_311_002;

/** Rows per insert when entries are recorded together: far below the 65,535 parameters a statement takes. */
const ENTRIES_PER_INSERT = 500;

/**
 * Appends one entry to the hash chain inside the caller's transaction, so the
 * entry exists exactly when the change does. The transaction-scoped advisory
 * lock keeps `seq` gap-free when several origins share one store. Secrets are
 * masked (redact.ts); the hash is SHA-256, or HMAC-SHA-256 with
 * SLUICE_AUDIT_KEY (chain.ts). With SLUICE_AUDIT_LOG_LIMIT, entries past the
 * newest N go in the same transaction and the newest removed one becomes the
 * anchor the chain is verified from. A transaction that set a `via`
 * (audit/via.ts) adds it to the changes of every entry.
 */
export async function recordAudit(tx: StoreDb, entry: AuditEntryInput): Promise<void> {
  await recordAuditEntries(tx, [entry]);
}

/**
 * Appends `entries` to the chain in their order, one entry each, exactly as
 * that many `recordAudit` calls would: under the lock taken once, chained on
 * the head read once, inserted a few hundred rows a statement. For a change
 * of many objects at once (a configuration apply's creates).
 */
export async function recordAuditEntries(tx: StoreDb, entries: AuditEntryInput[]): Promise<void> {
  if (entries.length === 0) return;
  const [{ via }] = rowsOf<{ via: string | null }>(
    await tx.execute(sql`select pg_advisory_xact_lock(${AUDIT_LOCK}), current_setting(${AUDIT_VIA_SETTING}, true) as via`),
  );
  const { key, limit } = auditOptions();
  let head = await chainHead(tx);
  const rows: Array<typeof auditLog.$inferInsert> = [];
  for (const entry of entries) {
    const seq = head.seq + 1;
    // Hashed exactly as it will read back from jsonb.
    const changes = JSON.parse(JSON.stringify(redactChanges(via ? { ...entry.changes, via } : entry.changes))) as Record<string, unknown>;
    const fields = { seq, timestamp: new Date(), actor: entry.actor, action: entry.action, target: entry.target, changes };
    const hash = entryHash(head.hash, canonicalEntry(fields), key);
    rows.push({ ...fields, prevHash: head.hash, hash, workspace: entry.workspace });
    head = { seq, hash };
  }
  for (let start = 0; start < rows.length; start += ENTRIES_PER_INSERT) await tx.insert(auditLog).values(rows.slice(start, start + ENTRIES_PER_INSERT));
  if (limit !== null && head.seq > limit) await prune(tx, head.seq - limit);
}

/** Removes entries up to `through` and anchors the chain on the newest of them. */
async function prune(tx: StoreDb, through: number): Promise<void> {
  const removed = await tx.delete(auditLog).where(lte(auditLog.seq, through)).returning({ seq: auditLog.seq, hash: auditLog.hash });
  if (removed.length === 0) return;
  const newest = removed.reduce((a, b) => (b.seq > a.seq ? b : a));
  await tx
    .insert(auditAnchor)
    .values({ seq: newest.seq, hash: newest.hash })
    .onConflictDoUpdate({ target: auditAnchor.id, set: { seq: newest.seq, hash: newest.hash, updatedAt: new Date() } });
}
