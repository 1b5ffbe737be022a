#!/usr/bin/env node
// Bundles the origin's own code into dist/origin/main.mjs, so it starts as
// plain `node`: no TypeScript transform at start or in memory (tsx costs the
// origin a second process and tens of MB); the `sluice` command likewise into
// dist/cli. Packages stay imports of
// node_modules; files the origin reads at run time are found from the
// project root (origin/paths.ts). Then builds the web console into
// dist/console (scripts/build-console.mjs) and reports its size. Takes about
// a second.
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { build } from 'esbuild';
import { buildConsole, sizeReport } from './build-console.mjs';

const root = new URL('..', import.meta.url).pathname;
const started = performance.now();
const common = {
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  absWorkingDir: root,
  write: false,
};
const [origin, cli] = await Promise.all([
  build({ ...common, entryPoints: ['origin/main.ts'], outfile: 'dist/origin/main.mjs', sourcemap: true, sourcesContent: false }),
  // The `sluice` command (bin/sluice.mjs runs it when it is newer than the sources): split, so the store's modules still load only for a command that opens it.
  build({ ...common, entryPoints: ['origin/cli/main.ts'], outdir: 'dist/cli', splitting: true, entryNames: '[name]', chunkNames: 'chunk-[hash]' }),
]);
// Each file replaced whole (write, then rename): an origin or a command starting
// meanwhile, say from a test run in the same checkout, never reads half a file.
// The command's entry is written last, so it never imports a chunk not yet there.
const files = [...origin.outputFiles, ...cli.outputFiles.filter((file) => !file.path.endsWith('/main.js')), ...cli.outputFiles.filter((file) => file.path.endsWith('/main.js'))];
for (const file of files) {
  mkdirSync(dirname(file.path), { recursive: true });
  const tmp = `${file.path}.${process.pid}.tmp`;
  writeFileSync(tmp, file.contents);
  renameSync(tmp, file.path);
}
// Chunks of earlier builds, named by their content, are no longer imported.
const written = new Set(cli.outputFiles.map((file) => basename(file.path)));
for (const name of readdirSync(join(root, 'dist/cli'))) if (name.startsWith('chunk-') && !written.has(name)) rmSync(join(root, 'dist/cli', name), { force: true });
const originMs = Math.round(performance.now() - started);
const consoleBuild = await buildConsole();
if (!process.argv.includes('--quiet')) {
  console.log(`built dist/origin/main.mjs and dist/cli in ${originMs} ms`);
  console.log(`built dist/console in ${Math.round(performance.now() - started) - originMs} ms:\n${sizeReport(consoleBuild)}`);
}
