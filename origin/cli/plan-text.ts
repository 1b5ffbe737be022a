import type { ConfigPlan } from '../services/config/index.ts';

/** Longest value shown in full in a change line; SQL and long lists are cut, the JSON output has them whole. */
const MAX_VALUE = 100;

function shown(value: unknown): string {
  const text = value === undefined ? 'absent' : JSON.stringify(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

function changeCount(plan: ConfigPlan): { create: number; update: number; delete: number; manage: number } {
  const count = { create: 0, update: 0, delete: 0, manage: 0 };
  for (const kind of Object.values(plan.changes)) {
    count.create += kind.create.length;
    count.update += kind.update.length;
    count.delete += kind.delete.length;
    count.manage += kind.manage.length;
  }
  return count;
}

/**
 * A plan as a person reads it, like `terraform plan`: per kind, `+ name` to
 * create, `~ name` to change with one `field: from -> to` line per changed
 * field (a secret only `changed`), `- name` to delete, `= name` for an
 * object the file names as it is, which becomes managed; then the totals,
 * as what would happen or, once `applied`, what did.
 */
export function planText(plan: ConfigPlan, { applied, colour }: { applied: boolean; colour: boolean }): string {
  const paint = (code: number, text: string) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);
  const lines: string[] = [];
  for (const [kind, changes] of Object.entries(plan.changes)) {
    const items = [
      ...changes.create.map((name) => paint(32, `  + ${name}`)),
      ...changes.update.flatMap((item) => [
        paint(33, `  ~ ${item.name}`),
        ...Object.entries(item.fields).map(([field, change]) => `      ${field}: ${change === 'changed' ? 'changed' : `${shown(change.from)} -> ${shown(change.to)}`}`),
      ]),
      ...changes.delete.map((name) => paint(31, `  - ${name}`)),
      ...changes.manage.map((name) => `  = ${name} (unchanged; becomes managed)`),
    ];
    if (items.length > 0) lines.push(`${kind}:`, ...items);
  }
  const count = changeCount(plan);
  const total = count.create + count.update + count.delete + count.manage;
  if (total === 0) return applied ? 'No changes: nothing was written.\n' : 'No changes: the target already matches the file.\n';
  lines.push(
    '',
    applied
      ? `Applied: ${count.create} created, ${count.update} changed, ${count.delete} deleted${count.manage > 0 ? `, ${count.manage} now managed` : ''}.`
      : `Plan: ${count.create} to create, ${count.update} to change, ${count.delete} to delete${count.manage > 0 ? `, ${count.manage} to manage` : ''}.`,
  );
  return `${lines.join('\n')}\n`;
}
