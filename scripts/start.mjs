#!/usr/bin/env node
// `npm start`: bundles the origin, then runs it as its own process with the
// launch settings of origin-launch.json (the benchmark starts its origins
// with the same ones). MALLOC_ARENA_MAX is read by glibc when a process
// starts, so it cannot be set from inside the origin (ADR 0018). A variable
// already in the environment wins.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const launch = JSON.parse(readFileSync(new URL('origin-launch.json', import.meta.url), 'utf8'));

// The origin logs each step of its own start; this line covers the bundling before it (about a second).
const started = performance.now();
execFileSync(process.execPath, ['scripts/build.mjs', '--quiet'], { cwd: root, stdio: 'inherit' });
console.log(`sluice: bundled the origin and the console in ${Math.round(performance.now() - started)} ms (scripts/build.mjs); starting the origin`);

const origin = spawn(process.execPath, [...launch.nodeFlags, 'dist/origin/main.mjs'], {
  cwd: root,
  env: { ...launch.env, ...process.env },
  stdio: 'inherit',
});

// A terminal's Ctrl-C reaches both processes; a signal sent to this one alone is passed on.
// Either way this process waits for the origin's own shutdown and exits as it did.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => origin.kill(signal));
}
origin.on('exit', (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else process.exit(code ?? 1);
});
