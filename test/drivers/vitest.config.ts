import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The driver suite on its own: it needs only the databases, not the origin
 * template the root config's global setup builds.
 * `npx vitest run --config test/drivers/vitest.config.ts`
 */
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/drivers/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
