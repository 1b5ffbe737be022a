import { serialize, writeOutput } from '../files.ts';
import type { Command } from '../command.ts';

const FORMATS = ['bundle', 'postman'] as const;

/** `collection export` as the spec names it: a snapshot in the code, an export being a delivery (docs/reference/source-map.md). */
export const collectionSnapshot: Command = {
  name: 'collection export',
  summary: 'Write a collection as a bundle (to import elsewhere) or a Postman file',
  positionals: [{ name: 'NAME', description: 'The collection' }],
  options: [
    { name: 'format', type: 'string', value: 'FORMAT', choices: FORMATS, description: 'bundle (default): the sluice-bundle file that `collection import` reads; postman: a Postman v2.1 collection of its published queries' },
    { name: 'out', type: 'string', value: 'FILE', description: 'Write to FILE instead of standard output; a .yaml or .yml name writes a bundle as YAML' },
  ],
  description: [
    'A bundle holds the newest version of each query of the collection: its SQL, description, tags, parameters, default connection name and cache_ttl. It holds no history, keys, roles or connection details.',
    'The Postman file calls each published query at /q/<name>; locally its base URL is http://SLUICE_HOST:SLUICE_PORT, through --server the server\'s address. Its apiKey variable is left empty.',
  ],
  exitCodes: [
    [0, 'written'],
    [1, 'a problem (no such collection, store or server unreachable, file not writable)'],
  ],
  examples: ['sluice collection export sales --out sales.bundle.yaml', 'sluice collection export sales --format postman --server https://sluice.example.com > sales.postman.json'],
  usesBackend: true,
  async run({ args, out, backend }) {
    const [name] = args.positionals;
    const format = (args.values.format as string | undefined) ?? 'bundle';
    const file = args.values.out as string | undefined;
    const target = await backend();
    out.progress(`Exporting collection ${JSON.stringify(name)} as ${format} from ${target.where}…`);
    const document = format === 'postman' ? await target.postmanFile(name!) : await target.snapshotBundle(name!);
    const text = serialize(document, file && format === 'bundle' && /\.ya?ml$/i.test(file) ? 'yaml' : 'json');
    if (file === undefined) {
      await out.result(text);
      return 0;
    }
    await writeOutput(file, text);
    const count = 'queries' in document ? `${document.queries.length} queries` : `${document.item.length} requests`;
    out.progress(`Wrote ${file} (${count}).`);
    return 0;
  },
};
