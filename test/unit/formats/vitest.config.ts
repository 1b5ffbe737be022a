import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The format tests need no origin: `npx vitest run --config test/unit/formats/vitest.config.ts`
 * runs them without the suite's global setup (which starts an origin).
 */
export default defineConfig({
  root: fileURLToPath(new URL('../../..', import.meta.url)),
  test: {
    include: ['test/unit/formats/**/*.test.ts'],
    testTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
