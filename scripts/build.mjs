#!/usr/bin/env node
// Bundles the origin's own code into dist/origin/main.mjs, so it starts as
// plain `node`: no TypeScript transform at start or in memory (tsx costs the
// origin a second process and tens of MB). Packages stay imports of
// node_modules; files the origin reads at run time are found from the
// project root (origin/paths.ts). Then builds the web console into
// dist/console (scripts/build-console.mjs) and reports its size. Takes about
// a second.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild';
import { buildConsole, sizeReport } from './build-console.mjs';

const started = performance.now();
const result = await build({
  entryPoints: ['origin/main.ts'],
  outfile: 'dist/origin/main.mjs',
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
  absWorkingDir: new URL('..', import.meta.url).pathname,
  write: false,
});
// Each file replaced whole (write, then rename): an origin starting meanwhile,
// say from a test run in the same checkout, never reads half a bundle.
for (const file of result.outputFiles) {
  mkdirSync(dirname(file.path), { recursive: true });
  const tmp = `${file.path}.${process.pid}.tmp`;
  writeFileSync(tmp, file.contents);
  renameSync(tmp, file.path);
}
const originMs = Math.round(performance.now() - started);
const consoleBuild = await buildConsole();
if (!process.argv.includes('--quiet')) {
  console.log(`built dist/origin/main.mjs in ${originMs} ms`);
  console.log(`built dist/console in ${Math.round(performance.now() - started) - originMs} ms:\n${sizeReport(consoleBuild)}`);
}
