/**
 * Database messages go back to clients as `detail`, and connection errors can
 * quote connection strings. Everything a driver surfaces passes through here:
 * a failure to reach the database through a redactor that knows the
 * connection's password, a statement the database rejected through
 * `statementDetail`, which masks by the message's shape alone.
 */

const MASK = '********';

/** `scheme://user:password@` and bare `user:password@`. */
const USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)?([^\s:/@'"]+):([^\s@/'"]*)@/gi;
/** `password=...`, `pwd='...'`, `passwd: "..."` in key-value connection strings. */
const PASSWORD_PAIR = /\b(password|passwd|pwd)(\s*=\s*)('[^']*'|"[^"]*"|[^\s;&,)'"]+)/gi;

export type Redactor = (text: string) => string;

/** A redactor that also strips the given secret values wherever they appear. */
export function createRedactor(...secrets: (string | null | undefined)[]): Redactor {
  const needles = new Set<string>();
  for (const secret of secrets) {
    if (!secret) continue;
    needles.add(secret);
    needles.add(encodeURIComponent(secret));
  }
  const ordered = [...needles].sort((a, b) => b.length - a.length);
  return (text) => redact(text, ordered);
}

/** A password given inside a JDBC URL (`?password=`, `;PASSWORD=`), so a redactor can know it as a secret too. */
export function passwordInUrl(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  return /[?&;]password=([^&;]*)/i.exec(url)?.[1] || null;
}

/** Strips credentials from a message: known secret values first, then credential-shaped fragments. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join(MASK);
  out = out.replace(USERINFO, (_m, scheme: string | undefined, user: string) => `${scheme ?? ''}${user}:${MASK}@`);
  return out.replace(PASSWORD_PAIR, (_m, key: string, eq: string) => `${key}${eq}${MASK}`);
}

/** A value as a database quotes it in a message: '…' or "…", a quote inside doubled. */
const QUOTED = /'(?:[^']|'')*'|"(?:[^"]|"")*"/g;

/**
 * SQLSTATE classes whose messages quote values: 22 (data exception: `invalid
 * input syntax for type integer: "x"`) and 23 (integrity constraint
 * violation: `Duplicate entry 'x'`). Elsewhere (42: `relation "films" does
 * not exist`) the quoted text is a name.
 */
const VALUE_CLASSES = /^2[23]/;
/** DuckDB has no SQLSTATE; it names the kind of error instead. */
const DUCKDB_VALUE_ERRORS = /^(?:Conversion|Constraint|Invalid Input|Out of Range) Error:/;

function quotesValues(error: unknown, message: string): boolean {
  const { code, sqlState } = (error ?? {}) as { code?: unknown; sqlState?: unknown };
  // mysql2 gives the SQLSTATE as `sqlState`, postgres as `code`.
  const state = typeof sqlState === 'string' ? sqlState : typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null;
  return state === null ? DUCKDB_VALUE_ERRORS.test(message) : VALUE_CLASSES.test(state);
}

/**
 * The `detail` of a statement the database rejected: its message, with every
 * value it quotes masked when the error is about values, and credential-shaped
 * fragments masked always. Nothing here depends on the connection's password:
 * masking only text equal to it answered whether a guess echoed back (in
 * `CAST('guess' AS integer)`) was the password. Names stay, as the caller wrote
 * them (the database never knows a password, so it can only echo one the
 * caller sent).
 */
export function statementDetail(error: unknown): string {
  const message = error instanceof Error ? error.message || error.name : String(error);
  const masked = quotesValues(error, message) ? message.replace(QUOTED, (quoted) => `${quoted[0]}${MASK}${quoted[0]}`) : message;
  return redact(masked);
}

/** The message of anything thrown, redacted. */
export function redactedMessage(error: unknown, redactor: Redactor): string {
  const message = error instanceof Error ? error.message : String(error);
  return redactor(message || (error instanceof Error ? error.name : 'unknown error'));
}
