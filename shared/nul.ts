/**
 * The NUL character (U+0000). PostgreSQL text cannot hold it: not the
 * store's (names, SQL, descriptions, filters), nor a PostgreSQL connection's
 * parameters. Nothing a client sends may carry one; the transports refuse it
 * with 400 before anything reaches a database (origin/http/refuse-nul.ts,
 * origin/http/body.ts, shared/parameters).
 */
export const NUL_PROBLEM = 'must not contain a NUL character';

export const hasNul = (text: string): boolean => text.includes('\u0000');

/**
 * The paths (`a.b.0`, as body errors are keyed) of the strings and keys
 * holding a NUL anywhere in a JSON value, in document order. Walks with a
 * list of its own rather than recursing, so no depth overflows the stack.
 */
export function nulPaths(value: unknown): string[] {
  const found: string[] = [];
  // Paths as text (`a.b`; null for the value itself): each step adds to the text, never copies a list.
  const pending: Array<[unknown, string | null]> = [[value, null]];
  while (pending.length > 0) {
    const [item, path] = pending.pop()!;
    if (typeof item === 'string') {
      if (hasNul(item)) found.push(path ?? '');
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    const children: Array<[unknown, string]> = [];
    for (const [key, child] of Object.entries(item)) {
      // A key with a NUL is reported at the path ending in it (a NUL string stands in for what it holds, keeping document order).
      children.push([hasNul(key) ? '\u0000' : child, path === null ? key : `${path}.${key}`]);
    }
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]!);
  }
  return found;
}
