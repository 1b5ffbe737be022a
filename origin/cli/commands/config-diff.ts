import type { Command } from '../command.ts';
import { readInput } from '../files.ts';
import { drifts, planText } from '../../../shared/config/plan-text.ts';

/** Exit codes of `config diff`, for CI: a pipeline tells "in sync" from "drifted" from "broken". */
export const DIFF_SAME = 0;
export const DIFF_CHANGES = 2;

export const configDiff: Command = {
  name: 'config diff',
  summary: 'Show what applying a configuration file would change',
  positionals: [{ name: 'FILE', description: 'A configuration file (YAML or JSON); - reads standard input' }],
  options: [
    { name: 'prune', type: 'boolean', description: 'Also show the managed objects an apply with --prune would delete' },
    { name: 'json', type: 'boolean', description: 'Print the plan (or the problem) as one JSON document on standard output' },
  ],
  description: [
    'Checks the file completely and compares it with what the target holds, writing nothing: an apply rolled back, so a diff and an apply never disagree. Per kind: + to create, ~ to change (one line per field, from -> to; a secret shows only changed), - to delete, = an object the file names as it is, which becomes managed. Objects only to manage are no drift: they are as the file says, so a diff of nothing else exits 0 (a drift check on a server set up by hand passes before its first apply).',
    'Through --server this needs config.read, which every administrator role holds.',
  ],
  exitCodes: [
    [DIFF_SAME, 'no changes: the target matches the file (objects only to manage included)'],
    [DIFF_CHANGES, 'changes: applying the file would create, change or delete something'],
    [1, 'problems: the file cannot be applied as it is (each named by its path in the file), or the target is unreachable'],
  ],
  examples: ['sluice config diff sluice.yaml', 'sluice config diff sluice.yaml --json --server https://sluice.example.com'],
  usesBackend: true,
  async run({ args, out, backend }) {
    const file = await readInput(args.positionals[0]!);
    const target = await backend();
    out.progress(`Comparing ${file.path} with ${target.where}…`);
    const plan = await target.diffConfig(file, { prune: args.values.prune === true });
    for (const warning of plan.warnings) out.warn(`${file.path}: ${warning.path ? `${warning.path}: ` : ''}${warning.message}`);
    await out.result(args.values.json ? `${JSON.stringify(plan, null, 2)}\n` : planText(plan, { applied: false, colour: out.colour }));
    return drifts(plan) ? DIFF_CHANGES : DIFF_SAME;
  },
};
