/**
 * How deep a request body may nest: objects and arrays inside one another,
 * at most 64 levels. Nothing Sluice takes needs more (parameters, options
 * and filters are a few levels deep), and every later walk over a body (the
 * NUL check, canonical JSON for hashes and cache keys, the schemas) may
 * then recurse without risking the stack. Checked once, right after a body
 * is parsed, by a walk that does not recurse itself.
 */
export const MAX_JSON_DEPTH = 64;

export const DEPTH_PROBLEM = `nests deeper than ${MAX_JSON_DEPTH} levels (objects and arrays inside one another)`;

/** Whether `value` holds objects or arrays more than `max` levels deep. */
export function nestsDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(item)) if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return false;
}
