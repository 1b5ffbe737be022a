import { stat } from 'node:fs/promises';
import { buildExampleDataset } from './build-dataset.ts';

// `tsx origin/examples/build-dataset-cli.ts <file.duckdb>`: builds the bundled example database alone.
const file = process.argv[2];
if (!file || process.argv.length > 3) {
  console.error('usage: tsx origin/examples/build-dataset-cli.ts <file.duckdb>');
  process.exit(2);
}
const started = performance.now();
try {
  await buildExampleDataset(file);
} catch (err) {
  console.error(`example dataset build failed: ${(err as Error).message}`);
  process.exit(1);
}
const { size } = await stat(file);
console.log(`built ${file} in ${Math.round(performance.now() - started)} ms (${size} bytes)`);
