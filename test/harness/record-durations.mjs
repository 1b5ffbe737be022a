#!/usr/bin/env node
// Writes test/durations.json (seconds per `project:path`) from this
// checkout's vitest results, for the test sequencer (harness/sequencer.ts)
// of a checkout without results. Run it after a full `npm test`.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cacheDir = join(root, 'node_modules/.vite/vitest');
const results = readdirSync(cacheDir).flatMap((hash) => {
  try {
    return JSON.parse(readFileSync(join(cacheDir, hash, 'results.json'), 'utf8')).results;
  } catch {
    return [];
  }
});
if (results.length === 0) {
  console.error(`record-durations: no results under ${cacheDir}: run the suite first`);
  process.exit(1);
}
const durations = Object.fromEntries(
  results
    .filter(([key, result]) => typeof result?.duration === 'number' && existsSync(join(root, key.slice(key.indexOf(':') + 1))))
    .map(([key, result]) => [key, Math.round(result.duration / 100) / 10])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(join(root, 'test/durations.json'), `${JSON.stringify(durations, null, 1)}\n`);
console.log(`record-durations: ${Object.keys(durations).length} files written to test/durations.json`);
