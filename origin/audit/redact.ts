/**
 * The last guard before an entry is written: whatever a verb passes, a
 * password or secret never becomes an audit value. Verbs already write
 * `********` in snapshots and `changed` in diffs (spec, "Audit entry"); this
 * catches a field a verb forgot. Fields named like a password or a secret
 * (`password`, `*_password`, `secret`, `secrets`, `secret_hash`,
 * `secret_sha256`, `token`, `token_hash`, `*_secret…`, `*_token…`) keep only
 * whether they were set: `********` for a value, `changed` for a `{from, to}`
 * diff; null, numbers and booleans (counts, flags) stay. Any string shaped
 * like an issued key secret or administrator token is masked wherever it is.
 */

export const MASK = '********';

const SECRET_FIELD = /(^|_)(password|secrets?|secret_(hash|sha256)|tokens?|token_hash)$/i;
const ISSUED_SECRET = /^slc_(adm_)?[0-9A-Za-z]{32}$/;

export function redactChanges(changes: Record<string, unknown>): Record<string, unknown> {
  return redactObject(changes);
}

function redactObject(object: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(object)) out[field] = SECRET_FIELD.test(field) ? hidden(value) : redactValue(value);
  return out;
}

function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return ISSUED_SECRET.test(value) ? MASK : value;
  if (Array.isArray(value)) return value.map(redactValue);
  if (value && typeof value === 'object' && !(value instanceof Date)) return redactObject(value as Record<string, unknown>);
  return value;
}

/** A secret field's value as an audit entry may hold it. */
function hidden(value: unknown): unknown {
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean') return value;
  if (value === MASK || value === 'changed') return value;
  if (isDiff(value)) return 'changed';
  return MASK;
}

const isDiff = (value: unknown): boolean =>
  !!value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 2 && 'from' in value && 'to' in value;
