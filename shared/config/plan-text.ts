/**
 * A configuration plan (what `POST /api/v1/config/diff` and `apply` answer)
 * as a person reads it: the CLI prints it, the console shows it. Only the
 * plan's shape is needed here, so the console's bundle takes no origin code.
 */

type FieldChange = { from: unknown; to: unknown } | 'changed';

interface KindChanges {
  create: string[];
  update: { name: string; fields: Record<string, FieldChange> }[];
  delete: string[];
  manage: string[];
}

export interface PlanShape {
  changes: Record<string, KindChanges>;
}

type Counts = Record<keyof KindChanges, number>;

/** Longest value shown in full in a change line; SQL and long lists are cut, the JSON output has them whole. */
const MAX_VALUE = 100;

function shown(value: unknown): string {
  const text = value === undefined ? 'absent' : JSON.stringify(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

function changeCount(plan: PlanShape): Counts {
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
 * Whether applying would create, change or delete anything. Objects the
 * file names as they already are, which an apply only takes under
 * management, are no drift: a drift check on a server set up by hand passes
 * before its first apply (`sluice config diff` exits 0).
 */
export const drifts = (plan: PlanShape): boolean => drifting(changeCount(plan));

const drifting = (count: Counts) => count.create + count.update + count.delete > 0;

/**
 * Like `terraform plan`: per kind, `+ name` to create, `~ name` to change
 * with one `field: from -> to` line per changed field (a secret only
 * `changed`), `- name` to delete, `= name` for an object the file names as
 * it is, which becomes managed; then the totals, as what would happen or,
 * once `applied`, what did.
 */
export function planText(plan: PlanShape, { applied, colour }: { applied: boolean; colour: boolean }): string {
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

/** One line on what a diff found, for a reader who wants the verdict before the list. */
export function diffVerdict(plan: PlanShape): string {
  const count = changeCount(plan);
  if (drifting(count)) return 'Drift: applying the file would create, change or delete what the list shows.';
  const { manage } = count;
  return manage === 0
    ? 'No changes: the target already matches the file.'
    : `No changes: the target already matches the file; applying it only takes the ${manage} object${manage === 1 ? '' : 's'} it names under management.`;
}
