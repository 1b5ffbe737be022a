import { ON_CONFLICT, type OnConflict } from '../../services/collections/bundle-file.ts';
import type { ImportReport } from '../../services/collections/bundle-import.ts';
import { SluiceError } from '../../errors.ts';
import type { Command } from '../command.ts';
import { readInput } from '../files.ts';

/** What to do about conflicts, by the mode that met them (skip meets none). */
const CONFLICT_HINTS: Record<OnConflict, string> = {
  fail: 'Import with --on-conflict skip to leave existing queries alone, or --on-conflict new-version to add a version to those already in the collection.',
  skip: '',
  'new-version': 'new-version adds versions only to queries already in the collection: move those queries into it first, rename the entries, or import with --on-conflict skip.',
};

function reportText(report: ImportReport): string {
  const lines: string[] = [];
  const list = (label: string, names: string[]) => {
    if (names.length > 0) lines.push(`${label} (${names.length}): ${names.join(', ')}`);
  };
  list(report.dry_run ? 'Would create' : 'Created', report.created);
  list(report.dry_run ? 'Would add a version to' : 'Added a version to', report.new_versions);
  list('Skipped, already there', report.skipped);
  list('Unchanged', report.unchanged);
  const written = report.created.length + report.new_versions.length;
  const queries = `${written} ${written === 1 ? 'query' : 'queries'}`;
  const into = `collection ${JSON.stringify(report.collection)}`;
  if (report.dry_run) lines.push(`Dry run: nothing was written; ${written === 0 ? 'nothing would be' : `${queries} would be`} saved in ${into}.`);
  else lines.push(written === 0 ? 'Nothing to write.' : `Imported ${queries} into ${into}, published.`);
  return `${lines.join('\n')}\n`;
}

export const collectionImport: Command = {
  name: 'collection import',
  summary: 'Import a collection bundle, all or nothing',
  positionals: [{ name: 'FILE', description: 'A bundle written by `collection export` (JSON or YAML); - reads standard input' }],
  options: [
    { name: 'dry-run', type: 'boolean', description: 'Check everything and report what would be done; write nothing' },
    {
      name: 'on-conflict',
      type: 'string',
      value: 'MODE',
      choices: ON_CONFLICT,
      description:
        'A query of the same name exists: fail (default) refuses the whole import; skip leaves it alone; new-version adds the entry as its new published version (a query in another collection is still a conflict: it is never moved)',
    },
    { name: 'collection', type: 'string', value: 'NAME', description: "File the queries in NAME instead of the bundle's own collection" },
    { name: 'json', type: 'boolean', description: 'Print the report (or the problem) as one JSON document on standard output' },
  ],
  description: [
    'Every entry is checked before anything is written: the file\'s shape (an unknown field is an error), each query\'s name and definition by the same checks as saving one, and conflicts with existing queries. Every problem is listed with its place in the file; then nothing is written.',
    'New queries are created and new versions added in one transaction, published, each audited as save_query with source: import. A connection the store lacks is a warning: the query is imported without a default connection.',
  ],
  exitCodes: [
    [0, 'imported (or, with --dry-run, the import would succeed)'],
    [1, 'a problem: nothing was written'],
  ],
  examples: [
    'sluice collection import sales.bundle.yaml --dry-run',
    'sluice collection import sales.bundle.yaml --on-conflict new-version --server https://sluice.example.com',
  ],
  usesBackend: true,
  async run({ args, out, backend }) {
    const file = await readInput(args.positionals[0]!);
    const target = await backend();
    const dryRun = args.values['dry-run'] === true;
    out.progress(`${dryRun ? 'Checking' : 'Importing'} ${file.path} into ${target.where}…`);
    const onConflict = (args.values['on-conflict'] as OnConflict | undefined) ?? 'fail';
    const report = await target.importBundle(file, { dryRun, onConflict, collection: args.values.collection as string | undefined }).catch((err: unknown) => {
      if (err instanceof SluiceError && err.code === 'query_exists') err.extras.hint ??= CONFLICT_HINTS[onConflict];
      throw err;
    });
    for (const warning of report.warnings) out.warn(`${file.path}: ${warning}`);
    await out.result(args.values.json ? `${JSON.stringify(report, null, 2)}\n` : reportText(report));
    return 0;
  },
};
