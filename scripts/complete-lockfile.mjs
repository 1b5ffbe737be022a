#!/usr/bin/env node
// The registry this project installs from serves only the platform packages of
// the machine it runs on, so `npm install` writes a lockfile without the other
// platforms' optional binaries (e.g. @duckdb/node-bindings-darwin-arm64), and
// `npm ci` then refuses the lockfile as out of sync. This adds the missing
// optional platform entries (version, os, cpu, libc from the package name),
// which npm skips on other platforms. Idempotent; run after `npm install`.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const PLATFORM = /-(darwin|linux|win32|freebsd|android|sunos|aix|openbsd|netbsd)-(x64|arm64|arm|ia32|ppc64|s390x|riscv64|loong64|mips64el)(-(musl|gnu|msvc))?$/;

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const match = PLATFORM.exec(name);
    if (!match) continue;
    const parent = path === '' ? '' : `${path}/`;
    if (lock.packages[`${parent}node_modules/${name}`] || lock.packages[`node_modules/${name}`]) continue;
    lock.packages[`node_modules/${name}`] = {
      version: range,
      cpu: [match[2]],
      ...(match[4] === 'musl' ? { libc: ['musl'] } : match[1] === 'linux' ? { libc: ['glibc'] } : {}),
      optional: true,
      os: [match[1]],
    };
    added++;
  }
}
if (added > 0) {
  lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
}
console.log(`complete-lockfile: ${added} optional platform entr${added === 1 ? 'y' : 'ies'} added`);
