/**
 * The NUL character (U+0000). PostgreSQL text cannot hold it: not the
 * store's (names, SQL, descriptions, filters), nor a PostgreSQL connection's
 * parameters. Nothing a client sends may carry one; the transports refuse it
 * with 400 before anything reaches a database (origin/http/refuse-nul.ts,
 * origin/http/body.ts, shared/parameters).
 */
export const NUL_PROBLEM = 'must not contain a NUL character';

export const hasNul = (text: string): boolean => text.includes('\u0000');

/** The paths (`a.b.0`, as body errors are keyed) of the strings and keys holding a NUL anywhere in a JSON value. */
export function nulPaths(value: unknown, path: string[] = []): string[] {
  if (typeof value === 'string') return hasNul(value) ? [path.join('.')] : [];
  if (value === null || typeof value !== 'object') return [];
  const found: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    const at = [...path, key];
    if (hasNul(key)) found.push(at.join('.'));
    else found.push(...nulPaths(item, at));
  }
  return found;
}
