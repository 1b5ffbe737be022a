import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { type Origin, startOrigin } from './origin.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by global-setup.ts: the project runs its files in shared workers (isolate: false). */
    sluiceShareOrigin: boolean;
  }
}

/** The environment every shared origin starts from: the default, with the zone the tests read times in. */
const SHARED_ENV = { TZ: 'Europe/Paris' };

const held = globalThis as { sluiceSharedOrigins?: Map<string, Promise<Origin>> };

/**
 * The origin of this worker with the default environment and `env` on top:
 * started by the first file that asks for that environment, then reused by
 * every later file the worker runs that asks for the same, and killed when
 * the run ends (`stopSharedOrigins`, from global-setup.ts's teardown: vitest
 * may end a worker without its exit handlers). Its `stop()` does nothing, so
 * a file's `afterAll` may still call it. Files share origins only in a
 * project without isolation (vitest.config.ts); elsewhere each file gets, and
 * stops, its own. Files that use one name everything they make with `unique`
 * and never change the origin's own settings (docs/testing.md).
 */
export async function sharedOrigin(env: Record<string, string> = {}): Promise<Origin> {
  const full = { ...SHARED_ENV, ...env };
  if (!inject('sluiceShareOrigin')) return startOrigin({ env: full });
  const key = JSON.stringify(Object.entries(full).sort(([a], [b]) => (a < b ? -1 : 1)));
  const origins = (held.sluiceSharedOrigins ??= new Map());
  let origin = origins.get(key);
  if (!origin) {
    origin = startOrigin({ env: full }).then((started) => {
      mkdirSync(sharedDir(), { recursive: true });
      writeFileSync(join(sharedDir(), String(started.process.pid)), started.dataDir);
      return started;
    });
    origins.set(key, origin);
  }
  return { ...(await origin), stop: async () => {} };
}

/** Where each shared origin is noted (pid, data dir) for the run's teardown. */
const sharedDir = () => join(process.env.SLUICE_TEST_RUN_DIR ?? '', 'shared-origins');

/**
 * Ends every shared origin of the run and removes its data dir. The edge in
 * front of one, if any, ended with its worker (Miniflare ends its workerd).
 */
export function stopSharedOrigins(): void {
  let noted: string[];
  try {
    noted = readdirSync(sharedDir());
  } catch {
    return;
  }
  for (const pid of noted) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      /* already gone */
    }
    rmSync(readFileSync(join(sharedDir(), pid), 'utf8'), { recursive: true, force: true });
  }
  rmSync(sharedDir(), { recursive: true, force: true });
}
