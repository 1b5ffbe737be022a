import type { auditLog } from '../store/schema/index.ts';
import { formatDate } from '../time.ts';
import { isKeyed } from './chain.ts';

/** An audit entry as `GET /api/v1/audit` lists it and the outputs receive it. */
export interface AuditEntryView {
  seq: number;
  /** In the server's zone; the hash covers the same instant in UTC (chain.ts). */
  timestamp: string;
  actor: string;
  action: string;
  target: string;
  /** The workspace of the object the entry is about; null for a server-wide entry. Not covered by the hash. */
  workspace: string | null;
  changes: Record<string, unknown>;
  prev_hash: string;
  hash: string;
  keyed: boolean;
}

export function auditEntryView(row: typeof auditLog.$inferSelect): AuditEntryView {
  return {
    seq: row.seq,
    timestamp: formatDate(row.timestamp),
    actor: row.actor,
    action: row.action,
    target: row.target,
    workspace: row.workspace,
    changes: row.changes,
    prev_hash: row.prevHash,
    hash: row.hash,
    keyed: isKeyed(row.hash),
  };
}
