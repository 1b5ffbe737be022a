import type { Command } from '../command.ts';
import { readInput } from '../files.ts';
import { planText } from '../../../shared/config/plan-text.ts';

export const configApply: Command = {
  name: 'config apply',
  summary: 'Make the target hold what a configuration file says, all or nothing',
  positionals: [{ name: 'FILE', description: 'A configuration file (YAML or JSON); - reads standard input' }],
  options: [
    { name: 'dry-run', type: 'boolean', description: 'Check the file and report the plan; write nothing' },
    { name: 'prune', type: 'boolean', description: 'Also delete managed objects the file lacks, in the sections the file has (a section left out is left alone)' },
    { name: 'json', type: 'boolean', description: 'Print what was applied (or the problem) as one JSON document on standard output' },
  ],
  description: [
    'Every change goes through the same verbs as the Management API, in one transaction: any problem changes nothing and is listed with its path in the file. One config_applied audit entry records who applied the file and its SHA-256; each change has its own entry with via: config. A file that changes nothing writes nothing.',
    'A query whose definition changed gets a new published version; one whose collection alone changed is moved. A new secret_sha256 for a key rotates it (60-minute grace). What a file applied or named is managed: --prune deletes only managed objects.',
    'Through --server this needs an owner (config.apply).',
  ],
  exitCodes: [
    [0, 'applied (or, with --dry-run, the file would apply)'],
    [1, 'problems: nothing was changed'],
  ],
  examples: ['sluice config apply sluice.yaml --dry-run', 'SLUICE_CLI_API_KEY=… sluice config apply sluice.yaml --prune --server https://sluice.example.com'],
  usesBackend: true,
  async run({ args, out, backend }) {
    const file = await readInput(args.positionals[0]!);
    const target = await backend();
    const dryRun = args.values['dry-run'] === true;
    out.progress(`${dryRun ? 'Checking' : 'Applying'} ${file.path} ${dryRun ? 'against' : 'to'} ${target.where}…`);
    const plan = await target.applyConfig(file, { prune: args.values.prune === true, dryRun });
    for (const warning of plan.warnings) out.warn(`${file.path}: ${warning.path ? `${warning.path}: ` : ''}${warning.message}`);
    await out.result(args.values.json ? `${JSON.stringify(plan, null, 2)}\n` : planText(plan, { applied: !dryRun, colour: out.colour }));
    return 0;
  },
};
