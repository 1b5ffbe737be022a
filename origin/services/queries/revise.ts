import { eq } from 'drizzle-orm';
import type { StoreDb } from '../../store/open.ts';
import { type QueryRow, queries } from '../../store/schema/index.ts';
import { announceQueryChange } from './definition-cache.ts';

type QueryChange = Partial<Pick<QueryRow, 'collection' | 'publishedVersion' | 'nextVersion'>>;

/**
 * Writes a change to a query's row inside the change's transaction: the
 * revision (and so the ETag) moves on and `updated_at` is now, and every
 * origin is told to drop the query's cached definition on commit.
 */
export async function reviseQuery(tx: StoreDb, current: QueryRow, change: QueryChange): Promise<QueryRow> {
  const [row] = await tx
    .update(queries)
    .set({ ...change, revision: current.revision + 1, updatedAt: new Date() })
    .where(eq(queries.id, current.id))
    .returning();
  await announceQueryChange(tx, current.name);
  return row;
}
