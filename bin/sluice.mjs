#!/usr/bin/env node
// The `sluice` command (package.json `bin`). It runs the bundle of
// scripts/build.mjs (dist/cli, made by `npm start`, `npm run build` and the
// tests) when that is newer than every source file: plain `node` starts the
// command in about a third of the time. Otherwise it runs the TypeScript
// source through tsx's loader in this same process, so `npx sluice` works
// right after `npm install` with no build step, and an edited source is never
// shadowed by an older bundle. Either way the exit code and signals are the
// command's own.
import { readdirSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const bundle = new URL('dist/cli/main.js', root);

function bundleIsFresh() {
  let built;
  try {
    built = statSync(bundle).mtimeMs;
  } catch {
    return false;
  }
  for (const folder of ['origin', 'shared']) {
    const dir = new URL(`${folder}/`, root);
    for (const name of readdirSync(dir, { recursive: true })) {
      if (name.endsWith('.ts') && statSync(new URL(name, dir)).mtimeMs > built) return false;
    }
  }
  return true;
}

if (bundleIsFresh()) {
  await import(bundle.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../origin/cli/main.ts');
}
