import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOrigin } from './harness/origin.ts';

/**
 * Builds the template data dir once per run: a migrated PGlite store with the
 * examples loaded. A cold PGlite start takes seconds; each test origin copies
 * this instead. Each run gets its own template, so concurrent runs never
 * rebuild one under each other's feet.
 */
export default async function setup() {
  const dir = join(await mkdtemp(join(tmpdir(), 'sluice-template-')), 'data');
  const origin = await startOrigin({ dataDir: dir });
  await origin.stop();
  process.env.SLUICE_TEST_TEMPLATE = dir;
  return async () => {
    await rm(join(dir, '..'), { recursive: true, force: true });
  };
}
