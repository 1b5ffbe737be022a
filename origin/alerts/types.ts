/**
 * An alert fires while a condition holds and is gone once it does not; it is
 * computed when read, never stored. Shape documented in docs/reference/alerts.md.
 */
export interface Alert {
  /** Stable name: `encryption_key_rotation_incomplete`, `export_failing`, … */
  name: string;
  severity: 'warning' | 'error';
  /** The object it is about (an export's name), or null for the whole server. */
  subject: string | null;
  message: string;
  details: Record<string, unknown>;
}
