import { readdir } from 'node:fs/promises';
import { and, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { NO_REQUEST } from '../../observability/request-context.ts';
import { results } from '../../store/schema/index.ts';
import { removeChunks, resultFolder } from './folder.ts';
import { ORIGIN_STOPPED } from './start.ts';
import { removeResultChunks } from './storage.ts';

const SWEEP_MS = 15_000;
/** How long an expired result still answers `state: expired` before it is forgotten. */
const FORGET_AFTER = sql`interval '1 day'`;

/**
 * Results whose origin stopped while it wrote them (their lease lapsed:
 * SLUICE_RESULT_LEASE without a renewal) are failed, never left running;
 * `id` limits it to one. Returns whether any was.
 */
export async function failLapsed(deps: AppDeps, id?: string): Promise<boolean> {
  const failed = await deps.store.db
    .update(results)
    .set({ state: 'failed', error: { error: ORIGIN_STOPPED.message }, chunks: [], rows: 0, bytes: 0, finishedAt: sql`now()`, expiresAt: sql`now() + make_interval(secs => ${deps.env.SLUICE_RESULT_TTL})`, leaseExpires: null })
    .where(and(inArray(results.state, ['queued', 'running']), lt(results.leaseExpires, sql`now()`), id === undefined ? undefined : eq(results.id, id)))
    .returning({ id: results.id, destination: results.destination, location: results.location });
  for (const row of failed) await removeResultChunks(deps, row);
  return failed.length > 0;
}

/**
 * One pass: lapsed results failed; finished results past their time
 * expired (chunks in a destination removed first, by whichever origin
 * sweeps, and expired only once they are gone); expired ones forgotten a
 * day later; and any folder here whose result is no longer kept (failed,
 * cancelled, expired, deleted, or failed by another origin while this one
 * was down) removed.
 */
export async function sweepResults(deps: AppDeps): Promise<void> {
  await failLapsed(deps);
  const due = and(inArray(results.state, ['succeeded', 'failed', 'cancelled']), lt(results.expiresAt, sql`now()`));
  const held = await deps.store.db
    .select({ id: results.id, destination: results.destination, location: results.location })
    .from(results)
    .where(and(due, eq(results.state, 'succeeded'), isNotNull(results.destination)));
  for (const row of held) if (!(await removeResultChunks(deps, row))) await deps.store.db.update(results).set({ expiresAt: sql`now() + interval '1 minute'` }).where(eq(results.id, row.id));
  await deps.store.db.update(results).set({ state: 'expired', chunks: [] }).where(due);
  await deps.store.db.delete(results).where(and(eq(results.state, 'expired'), lt(results.expiresAt, sql`now() - ${FORGET_AFTER}`)));
  let folders: string[];
  try {
    folders = await readdir(resultFolder(deps.env));
  } catch {
    return;
  }
  const ids = folders.filter((name) => name.startsWith('res_'));
  if (ids.length === 0) return;
  const kept = await deps.store.db.select({ id: results.id }).from(results).where(and(inArray(results.id, ids), inArray(results.state, ['queued', 'running', 'succeeded'])));
  const keep = new Set(kept.map((row) => row.id));
  for (const id of ids) if (!keep.has(id)) await removeChunks(deps.env, id);
}

/** Sweeps every SLUICE_RESULT_LEASE-ish while the origin runs (at most every 15 s); returns the stop. */
export function startResultSweeper(deps: AppDeps): () => void {
  const every = Math.min(SWEEP_MS, deps.env.SLUICE_RESULT_LEASE * 1000);
  const sweep = () => sweepResults(deps).catch((err: Error) => deps.logger.warn({ ...NO_REQUEST, err: { message: err.message } }, 'sweeping stored results failed; trying again'));
  void sweep();
  const timer = setInterval(sweep, every);
  timer.unref();
  return () => clearInterval(timer);
}
