import { redact } from '../../drivers/redact.ts';
import { badRequest } from '../../errors.ts';

/**
 * A password inside a JDBC URL would be stored as written: never encrypted,
 * outside what rekey and the startup checks see. So it is refused, and
 * `password` (sent to the driver as its password property) takes it
 * instead. The forms: a `password`, `pwd` or `passwd` property
 * (`;PASSWORD=` in H2 and SQL Server, `?password=` / `&password=` in a
 * query string), `user:password@` before the host, and Oracle's
 * `user/password@`. An empty value is no password.
 */

const PROPERTY = /[;?&]\s*(password|passwd|pwd)\s*=\s*[^\s;&]/i;
const USERINFO = /^jdbc:[a-z0-9+.:-]*?\/\/[^/?;@\s]*:[^/?;@\s]*@/i;
const ORACLE = /^jdbc:oracle:[a-z]+:[^/@:\s]+\/[^@\s]+@/i;

/** How `url` carries a password (`;PASSWORD=…`, `user:…@`), or null when it carries none. */
export function urlPasswordForm(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  const property = PROPERTY.exec(url);
  if (property) return `${property[0][0]}${property[1]}=…`;
  if (USERINFO.test(url)) return 'user:…@';
  if (ORACLE.test(url)) return 'user/…@';
  return null;
}

/** `url` with any password it carries as `********` (Oracle's `user/…@` too, which a message's redaction does not know). */
export function maskUrlPassword(url: string): string {
  return redact(url).replace(/^(jdbc:oracle:[a-z]+:[^/@:\s]+\/)[^@\s]+@/i, '$1********@');
}

/** 400 when a jdbc or h2 connection's `options.jdbc_url` carries a password. */
export function assertNoUrlPassword(options: Record<string, unknown> | null | undefined): void {
  const form = urlPasswordForm(options?.jdbc_url);
  if (form === null) return;
  const problem = `holds a password (${form}): send it as password, which is stored encrypted and never shown (a URL is stored as written)`;
  throw badRequest(`options.jdbc_url ${problem}`, { errors: { 'options.jdbc_url': problem } });
}
