import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One origin per embedded store. PGlite keeps no lock of its own: two
 * origins on one directory both ran, both accepted writes, and after a
 * restart one's writes were gone. The lock is a file made with O_EXCL holding
 * the owner's pid and its start time; a lock whose owner is gone (kill -9, a
 * crash) is taken over, so a restart never needs a hand to remove it.
 */
export class DataDirLocked extends Error {}

interface Owner {
  pid: number;
  /** Linux's start time of the process (in /proc/<pid>/stat): a reused pid is not the owner. */
  started: string | null;
}

export function lockDataDir(storeDir: string): () => void {
  const path = join(storeDir, 'sluice.lock');
  const me: Owner = { pid: process.pid, started: startTime(process.pid) };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      return () => release(path, me);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = readOwner(path);
    if (owner && isAlive(owner)) {
      throw new DataDirLocked(
        `The embedded store in ${storeDir} is in use by another origin (pid ${owner.pid}). ` +
          'Stop that origin, start this one with another SLUICE_DATA_DIR, or let several origins share one store ' +
          'on a PostgreSQL server with SLUICE_DATABASE_URL.',
      );
    }
    // The owner is gone: remove its lock and try again (another starter may win the retry).
    try {
      unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new DataDirLocked(`Could not take the lock ${path}: other origins keep starting on ${storeDir}.`);
}

function release(path: string, me: Owner): void {
  const owner = readOwner(path);
  if (owner?.pid !== me.pid) return;
  try {
    unlinkSync(path);
  } catch {
    // Already gone: nothing to release.
  }
}

function readOwner(path: string): Owner | null {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8')) as Partial<Owner>;
    return typeof owner.pid === 'number' ? { pid: owner.pid, started: owner.started ?? null } : null;
  } catch {
    // Unreadable or half-written (its writer died between create and write): nobody holds it.
    return null;
  }
}

function isAlive(owner: Owner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: a live process of another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const started = startTime(owner.pid);
  return owner.started === null || started === null || started === owner.started;
}

function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which sits in parentheses and may itself hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}
