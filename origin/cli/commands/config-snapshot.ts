import { SluiceError } from '../../errors.ts';
import { APPLIED_KINDS, type AppliedKind } from '../../services/config/kinds.ts';
import type { Command } from '../command.ts';
import { serialize, writeOutput } from '../files.ts';

function kindsOf(text: string | undefined): AppliedKind[] | undefined {
  if (text === undefined) return undefined;
  const kinds = text.split(',').map((kind) => kind.trim()).filter((kind) => kind !== '');
  const unknown = kinds.filter((kind) => !(APPLIED_KINDS as readonly string[]).includes(kind));
  if (unknown.length > 0) {
    throw new SluiceError('invalid_request', `--kinds: no section named ${unknown.map((kind) => JSON.stringify(kind)).join(', ')}`, {
      hint: `Give one or more of ${APPLIED_KINDS.join(', ')}, comma-separated.`,
    });
  }
  return kinds as AppliedKind[];
}

/** `config export` as the spec names it: a snapshot in the code, an export being a delivery (docs/reference/source-map.md). */
export const configSnapshot: Command = {
  name: 'config export',
  summary: 'Write what a server holds as a configuration file',
  positionals: [],
  options: [
    { name: 'out', type: 'string', value: 'FILE', description: 'Write to FILE instead of standard output; YAML, or JSON for a .json name' },
    { name: 'kinds', type: 'string', value: 'LIST', description: `Only these sections, comma-separated: ${APPLIED_KINDS.join(', ')}` },
    { name: 'workspace', type: 'string', value: 'NAME', description: 'Only the objects of this workspace (the file then names it)' },
    { name: 'examples', type: 'boolean', description: 'Include the bundled example objects, left out by default' },
  ],
  description: [
    'The file (format: sluice-config, format_version: 1) takes the Management API\'s own fields. Passwords appear only as ${VAR} references and keys only by secret_sha256: the file holds no secret and can be committed.',
    'Applying the file to another server (`config apply`) makes it hold the same; `config diff` then reports no changes.',
    'Through --server this needs an owner (config.apply): the file holds keys\' secret hashes.',
  ],
  exitCodes: [
    [0, 'written'],
    [1, 'a problem (store or server unreachable, unknown kind or workspace, file not writable)'],
  ],
  examples: ['sluice config export --out sluice.yaml', 'sluice config export --kinds queries,roles --server https://staging.example.com > staging.yaml'],
  usesBackend: true,
  async run({ args, out, backend }) {
    const file = args.values.out as string | undefined;
    const kinds = kindsOf(args.values.kinds as string | undefined);
    const target = await backend();
    out.progress(`Exporting configuration from ${target.where}…`);
    const document = await target.snapshotConfig({ kinds, workspace: args.values.workspace as string | undefined, examples: args.values.examples === true });
    const text = serialize(document, file && /\.json$/i.test(file) ? 'json' : 'yaml');
    if (file === undefined) {
      await out.result(text);
      return 0;
    }
    await writeOutput(file, text);
    out.progress(`Wrote ${file}.`);
    return 0;
  },
};
