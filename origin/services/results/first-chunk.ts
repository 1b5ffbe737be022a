import { eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { results } from '../../store/schema/index.ts';

const POLL_MS = 50;

/**
 * Resolves once result `id` has its first chunk in place or has ended,
 * checking its row every 50 ms for at most `ms`; false when neither came.
 */
export async function firstChunkWritten(deps: AppDeps, id: string, ms: number, signal: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!signal.aborted) {
    const [row] = await deps.store.db.select({ state: results.state, chunks: results.chunks }).from(results).where(eq(results.id, id));
    if (!row) return false;
    if (row.chunks.length > 0 || (row.state !== 'running' && row.state !== 'queued')) return row.chunks.length > 0;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return false;
}
