import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { templateDir, startOrigin } from './harness/origin.ts';

/**
 * Builds the template data dir once per run: a migrated PGlite store with the
 * examples loaded. A cold PGlite start takes seconds; each test origin copies
 * this instead.
 */
export default async function setup() {
  const dir = templateDir();
  await rm(dir, { recursive: true, force: true });
  const origin = await startOrigin({ dataDir: dir });
  await origin.stop();
  if (!existsSync(dir)) throw new Error('template data dir was not created');
  process.env.SLUICE_TEST_TEMPLATE = dir;
}
