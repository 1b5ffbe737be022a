import { eq } from 'drizzle-orm';
import type { Caller } from '../../access/caller.ts';
import { ownerOf } from '../../access/owner.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import { type ResultRow, results } from '../../store/schema/index.ts';
import { cancelResult } from './start.ts';
import { chunkLinks, removeResultChunks } from './storage.ts';
import { failLapsed } from './sweep.ts';
import { type ResultView, resultView } from './view.ts';

const notFound = (id: string) => new SluiceError('result_not_found', `No result ${id}`);

/**
 * The result, when the caller may see it: the caller that made it (the same
 * key, the same administrator) or the server key. Anyone else is told it
 * does not exist, as for an id that never did.
 */
async function ownResult(deps: AppDeps, caller: Caller, id: string): Promise<ResultRow> {
  const read = async () => (await deps.store.db.select().from(results).where(eq(results.id, id)))[0];
  let row = await read();
  if (!row || (caller.via !== 'break-glass' && row.owner !== ownerOf(caller))) throw notFound(id);
  // Its origin stopped while it ran: failed now, not left running until the next sweep.
  if ((row.state === 'running' || row.state === 'queued') && row.leaseExpires && row.leaseExpires.getTime() < Date.now() && (await failLapsed(deps, id))) row = (await read())!;
  return row;
}

/** `GET /results/{id}`: the result with fresh chunk links, on the origin that holds its chunks. */
export async function viewResult(deps: AppDeps, caller: Caller, id: string): Promise<ResultView> {
  const row = await ownResult(deps, caller, id);
  const expires = Math.floor(Date.now() / 1000) + deps.env.SLUICE_RESULT_LINK_TTL;
  return resultView(row, await chunkLinks(deps, row, expires), expires);
}

/** `DELETE /results/{id}`: a running result is cancelled (its statement stops), its chunks removed, and it is gone. */
export async function deleteResult(deps: AppDeps, caller: Caller, id: string): Promise<void> {
  const row = await ownResult(deps, caller, id);
  await cancelResult(deps, id);
  await deps.store.db.delete(results).where(eq(results.id, id));
  await removeResultChunks(deps, row);
}
