/**
 * How this process writes the audit chain: the HMAC key (`SLUICE_AUDIT_KEY`)
 * and retention (`SLUICE_AUDIT_LOG_LIMIT`). Set once at startup by `main.ts`.
 * Module state rather than a dependency because every verb appends through
 * `recordAudit(tx, entry)` inside its own transaction, and threading the
 * environment through each of them would change every verb for one setting.
 */
export interface AuditOptions {
  /** HMAC-SHA-256 key; null writes plain SHA-256 entries. */
  key: string | null;
  /** Entries kept; null keeps every entry. */
  limit: number | null;
}

let current: AuditOptions = { key: null, limit: null };

export function configureAudit(options: AuditOptions): void {
  current = { ...options };
}

export function auditOptions(): AuditOptions {
  return current;
}
