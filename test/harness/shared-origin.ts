import { rmSync } from 'node:fs';
import { inject } from 'vitest';
import { type Origin, startOrigin } from './origin.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by global-setup.ts: the project runs its files in shared workers (isolate: false). */
    sluiceShareOrigin: boolean;
  }
}

/** The one environment of the shared origin: the default, with the zone the tests read times in. */
const SHARED_ENV = { TZ: 'Europe/Paris' };

const held = globalThis as { sluiceSharedOrigin?: Promise<Origin> };

/**
 * The default-environment origin of this worker: started by the first file
 * that asks, then reused by every later file the worker runs, and killed when
 * the worker exits. Its `stop()` does nothing, so a file's `afterAll` may
 * still call it. Files share it only in a project without isolation
 * (vitest.config.ts); elsewhere each file gets, and stops, its own.
 * Files that use it name everything they make with `unique` and never
 * change the origin's own settings (docs/testing.md).
 */
export async function sharedOrigin(): Promise<Origin> {
  if (!inject('sluiceShareOrigin')) return startOrigin({ env: SHARED_ENV });
  held.sluiceSharedOrigin ??= startOrigin({ env: SHARED_ENV, edge: false }).then((origin) => {
    process.once('exit', () => {
      origin.process.kill('SIGKILL');
      rmSync(origin.dataDir, { recursive: true, force: true });
    });
    return origin;
  });
  return { ...(await held.sluiceSharedOrigin), stop: async () => {} };
}
