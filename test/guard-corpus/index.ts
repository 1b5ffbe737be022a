import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Engine } from '../../origin/sql/engine.ts';

/**
 * The published guard corpus: per engine, statements with the guard's
 * expected verdict for a caller who may not write (`refused`, or `read`) and
 * why. Run over the guard by test/unit/sql/guard-corpus.test.ts and against
 * the real databases through an origin by test/query/guard-corpus.test.ts;
 * listed in docs/reference/read-only-guard.md.
 */
const Case = z.object({
  sql: z.string().min(1),
  verdict: z.enum(['refused', 'read']),
  why: z.string().min(1),
  /** A read the guard leaves to the database, which refuses it (an error, not rows). */
  runs: z.boolean().optional(),
});
const File = z.object({ engine: z.enum(['postgres', 'mysql', 'duckdb', 'sqlite', 'h2', 'clickhouse']), cases: z.array(Case).min(1) });

export type CorpusCase = z.infer<typeof Case>;
export const CORPUS_ENGINES = ['postgres', 'mysql', 'duckdb', 'sqlite', 'h2', 'clickhouse'] as const satisfies readonly Engine[];
export type CorpusEngine = (typeof CORPUS_ENGINES)[number];

export function corpus(engine: CorpusEngine): CorpusCase[] {
  const file = File.parse(JSON.parse(readFileSync(new URL(`./${engine}.json`, import.meta.url), 'utf8')));
  if (file.engine !== engine) throw new Error(`${engine}.json holds the corpus of ${file.engine}`);
  return file.cases;
}
