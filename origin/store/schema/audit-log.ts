import { bigint, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** The hash-chained audit log. `seq` is gap-free; each hash covers the previous one. */
export const auditLog = pgTable(
  'audit_log',
  {
    seq: bigint('seq', { mode: 'number' }).primaryKey(),
    timestamp: timestamp('timestamp', { withTimezone: true }).notNull(),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    target: text('target').notNull(),
    changes: jsonb('changes').$type<Record<string, unknown>>().notNull(),
    /** The previous entry's `hash` (the anchor's for the first entry; '' at the chain's start). */
    prevHash: text('prev_hash').notNull(),
    /** SHA-256 hex, or `hmac-sha256:<hex>` when written with SLUICE_AUDIT_KEY (see origin/audit/chain.ts). */
    hash: text('hash').notNull(),
    /**
     * The workspace of the object the entry is about, or null for a
     * server-wide one (administrators, settings, secrets): what a
     * workspace-scoped read is filtered by. Outside the hash: it is derived
     * from the target, not a fact the entry attests.
     */
    workspace: text('workspace'),
  },
  (t) => [index('audit_log_workspace_seq').on(t.workspace, t.seq)],
);
