import { badRequest } from '../errors.ts';

/**
 * Object keys and bucket prefixes as `/`-separated segments. A segment that
 * is empty, `.` or `..`, a backslash (a separator on some stores and
 * systems) or a control character could name a place outside the prefix,
 * or a different object than the one written: such a key is refused.
 */

/** Why `path` is not a safe key, or null when it is. */
export function keyProblem(path: string): string | null {
  if (path === '') return 'is empty';
  if (path.startsWith('/')) return 'starts with "/"';
  if (path.includes('\\')) return 'contains a backslash';
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'contains a control character';
  for (const segment of path.split('/')) {
    if (segment === '') return 'has an empty segment ("//" or a trailing "/")';
    if (segment === '.' || segment === '..') return `has a "${segment}" segment`;
  }
  return null;
}

/** 400 unless `key` stays under the prefix. */
export function assertSafeKey(key: string): void {
  const problem = keyProblem(key);
  if (problem) throw badRequest(`Object key ${JSON.stringify(key)} ${problem}: a key may not escape the destination's prefix`, { errors: { key: problem } });
}

/** The full key of `key` under `prefix` (`''`: the bucket's root). */
export const underPrefix = (prefix: string, key: string): string => (prefix === '' ? key : `${prefix}/${key}`);
