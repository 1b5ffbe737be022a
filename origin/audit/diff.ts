import { canonicalJson } from './canonical-json.ts';

/**
 * An update's audit `changes`: only the fields that changed, as `{field: {from, to}}`.
 * Objects compare whatever their key order: the store's jsonb keeps its own.
 */
export function diffFields(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const from = before[field] ?? null;
    const to = after[field] ?? null;
    if (canonicalJson(from) !== canonicalJson(to)) changes[field] = { from, to };
  }
  return changes;
}
