import { parseMongoUri, uriWithoutPassword } from '../../drivers/mongodb/client.ts';
import { badRequest } from '../../errors.ts';
import type { ConnectionFields } from './fields.ts';

/**
 * A `mongodb` connection may be given as `options.uri`. Its password is a
 * password like any other: taken out of the URI on save and kept in the
 * `password` field (encrypted at rest, masked in responses, a `${VAR}`
 * reference allowed), so the stored URI never holds one. Responses show the
 * URI with the mask in its place; the mask sent back keeps the stored one.
 */

const URI_PROBLEM = 'must be a mongodb:// or mongodb+srv:// URI';

/**
 * The fields with the URI's password moved to `password`. `passwordGiven`:
 * the request set `password` itself, so a URI carrying a different one is a
 * conflict (400) rather than a silent choice.
 */
export function withUriPassword(fields: ConnectionFields, mask: string, passwordGiven: boolean): ConnectionFields {
  const uri = fields.options.uri;
  if (uri === undefined || uri === null) return fields;
  if (fields.db !== 'mongodb') {
    throw badRequest(`options.uri applies only to mongodb connections`, { errors: { 'options.uri': 'applies only to mongodb connections' } });
  }
  const parsed = typeof uri === 'string' ? parseMongoUri(uri) : null;
  if (!parsed) throw badRequest(`options.uri ${URI_PROBLEM}`, { errors: { 'options.uri': URI_PROBLEM } });
  const options = { ...fields.options, uri: uriWithoutPassword(parsed) };
  if (parsed.password === null || parsed.password === mask) return { ...fields, options };
  if (passwordGiven && fields.password !== null && fields.password !== parsed.password) {
    const problem = 'holds a password and so does password: give it once';
    throw badRequest(`options.uri ${problem}`, { errors: { 'options.uri': problem } });
  }
  return { ...fields, password: parsed.password, options };
}

/** Whether `options` sent a mongodb URI carrying a password of its own (not the mask). */
export function uriPasswordSent(options: Record<string, unknown> | null | undefined, mask: string): boolean {
  const uri = options?.uri;
  const password = typeof uri === 'string' ? parseMongoUri(uri)?.password : null;
  return password !== null && password !== undefined && password !== mask;
}

/** Where a request gave the password it saves: `password`, or else a mongodb `options.uri`. */
export const passwordField = (sent: string | null | undefined): string => (sent === undefined || sent === null ? 'options.uri' : 'password');

/** Options as responses show them: a mongodb URI with `shown` (the mask, or the `${VAR}` reference) where its password goes. */
export function shownOptions(db: string, options: Record<string, unknown>, shown: string | null): Record<string, unknown> {
  if (db !== 'mongodb' || typeof options.uri !== 'string' || shown === null) return options;
  const parsed = parseMongoUri(options.uri);
  if (!parsed || parsed.user === null) return options;
  return { ...options, uri: uriWithoutPassword({ ...parsed, password: '' }, shown) };
}
