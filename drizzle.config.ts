import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './origin/store/schema/index.ts',
  out: './origin/store/migrations',
});
