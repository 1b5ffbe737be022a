import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Finding the programs a test needs on this machine. A missing one fails the
 * test that needs it with a message naming what to install: a test never
 * skips itself because its component is absent (docs/testing.md).
 */

const PG_SERVER_TOOLS = ['initdb', 'pg_ctl'];
const hasAll = (dir: string, tools: string[]) => tools.every((tool) => existsSync(join(dir, tool)));

/** `pg_config --bindir`, when pg_config is installed. */
function pgConfigBinDir(): string | undefined {
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Debian's versioned server directories: the clusters' versions (what scripts/services.sh starts) first, newest first. */
function debianBinDirs(): string[] {
  const list = (dir: string) => {
    try {
      return readdirSync(dir).filter((name) => /^\d+$/.test(name));
    } catch {
      return [];
    }
  };
  const byNewest = (versions: string[]) => versions.sort((a, b) => Number(b) - Number(a));
  const versions = new Set([...byNewest(list('/etc/postgresql')), ...byNewest(list('/usr/lib/postgresql'))]);
  return [...versions].map((v) => `/usr/lib/postgresql/${v}/bin`);
}

/**
 * The directory holding PostgreSQL's server programs (initdb, pg_ctl), of
 * whatever version is installed: SLUICE_TEST_PG_BINDIR, `pg_config --bindir`,
 * Debian's /usr/lib/postgresql/<version>/bin, then PATH. Throws naming what
 * is missing and where it looked.
 */
export function postgresServerBinDir(): string {
  const candidates = [
    process.env.SLUICE_TEST_PG_BINDIR,
    pgConfigBinDir(),
    ...debianBinDirs(),
    ...(process.env.PATH ?? '').split(delimiter),
  ].filter((dir): dir is string => Boolean(dir));
  const found = candidates.find((dir) => hasAll(dir, PG_SERVER_TOOLS));
  if (found) return found;
  throw new Error(
    `PostgreSQL's server programs (${PG_SERVER_TOOLS.join(', ')}) are missing: looked in ${[...new Set(candidates)].join(', ')}. ` +
      'Install the PostgreSQL server (Debian: postgresql; scripts/services.sh starts it) or set SLUICE_TEST_PG_BINDIR.',
  );
}
