/**
 * Database messages go back to clients as `detail`, and connection errors can
 * quote connection strings. Everything a driver surfaces passes through here.
 */

const MASK = '********';

/** `scheme://user:password@` and bare `user:password@`. */
const USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)?([^\s:/@'"]+):([^\s@/'"]*)@/gi;
/** `password=...`, `pwd='...'`, `passwd: "..."` in key-value connection strings. */
const PASSWORD_PAIR = /\b(password|passwd|pwd)(\s*=\s*)('[^']*'|"[^"]*"|[^\s;&,)]+)/gi;

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

/** Strips credentials from a message: known secret values first, then credential-shaped fragments. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join(MASK);
  out = out.replace(USERINFO, (_m, scheme: string | undefined, user: string) => `${scheme ?? ''}${user}:${MASK}@`);
  return out.replace(PASSWORD_PAIR, (_m, key: string, eq: string) => `${key}${eq}${MASK}`);
}

/** The message of anything thrown, redacted. */
export function redactedMessage(error: unknown, redactor: Redactor): string {
  const message = error instanceof Error ? error.message : String(error);
  return redactor(message || (error instanceof Error ? error.name : 'unknown error'));
}
