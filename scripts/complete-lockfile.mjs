#!/usr/bin/env node
// The registry this project installs from serves only the platform packages of
// the machine it runs on, so `npm install` writes a lockfile without the other
// platforms' optional binaries (e.g. @duckdb/node-bindings-darwin-arm64), and
// `npm ci` then refuses the lockfile as out of sync. This adds the missing
// optional platform entries (version, os, cpu, libc from the package name),
// which npm skips on other platforms. Idempotent; run after `npm install`
// (here or in test/, whose lockfile holds the test-only servers).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const PLATFORM = /-(darwin|linux|win32|freebsd|android|sunos|aix|openbsd|netbsd)-(x64|arm64|arm|ia32|ppc64|s390x|riscv64|loong64|mips64el)(-(musl|gnu|msvc))?$/;

function complete(name) {
  const file = new URL(`../${name}`, import.meta.url);
  if (!existsSync(file)) return;
  const lock = JSON.parse(readFileSync(file, 'utf8'));
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
  console.log(`complete-lockfile: ${name}: ${added} optional platform entr${added === 1 ? 'y' : 'ies'} added`);
}

for (const name of ['package-lock.json', 'test/package-lock.json']) complete(name);
