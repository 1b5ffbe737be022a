import type { ConfigPlan } from './backend.ts';

/** Longest value shown in full in a change line; SQL and long lists are cut, the JSON output has them whole. */
const MAX_VALUE = 100;

function shown(value: unknown): string {
  const text = value === undefined ? 'absent' : JSON.stringify(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

const nameOf = (item: unknown): string =>
  typeof item === 'string' ? item : item && typeof item === 'object' && 'name' in item ? String((item as { name: unknown }).name) : JSON.stringify(item);

export function changeCount(plan: ConfigPlan): { create: number; update: number; delete: number } {
  const count = { create: 0, update: 0, delete: 0 };
  for (const kind of Object.values(plan.changes ?? {})) {
    count.create += kind.create?.length ?? 0;
    count.update += kind.update?.length ?? 0;
    count.delete += kind.delete?.length ?? 0;
  }
  return count;
}

/**
 * A plan as a person reads it, like `terraform plan`: per kind, `+ name` to
 * create, `~ name` to change with one `field: from -> to` line per changed
 * field, `- name` to delete; then the totals, as what would happen or, once
 * `applied`, what did.
 */
export function planText(plan: ConfigPlan, { applied, colour }: { applied: boolean; colour: boolean }): string {
  const paint = (code: number, text: string) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);
  const lines: string[] = [];
  for (const [kind, changes] of Object.entries(plan.changes ?? {})) {
    const items = [
      ...(changes.create ?? []).map((item) => paint(32, `  + ${nameOf(item)}`)),
      ...(changes.update ?? []).flatMap((item) => [
        paint(33, `  ~ ${item.name}`),
        ...Object.entries(item.fields ?? {}).map(([field, { from, to }]) => `      ${field}: ${shown(from)} -> ${shown(to)}`),
      ]),
      ...(changes.delete ?? []).map((item) => paint(31, `  - ${nameOf(item)}`)),
    ];
    if (items.length > 0) lines.push(`${kind}:`, ...items);
  }
  const count = changeCount(plan);
  const total = count.create + count.update + count.delete;
  if (total === 0) return applied ? 'No changes: nothing was written.\n' : 'No changes: the target already matches the file.\n';
  lines.push(
    '',
    applied
      ? `Applied: ${count.create} created, ${count.update} changed, ${count.delete} deleted.`
      : `Plan: ${count.create} to create, ${count.update} to change, ${count.delete} to delete.`,
  );
  return `${lines.join('\n')}\n`;
}
