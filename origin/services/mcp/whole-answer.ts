import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import type { RequestScope } from '../../observability/request-context.ts';
import { firstChunkWritten } from '../results/first-chunk.ts';
import { viewResult } from '../results/read.ts';
import { DEFAULT_CHUNK_ROWS, startResult } from '../results/start.ts';
import { requestRowOptions } from '../run/options.ts';
import type { RunSource } from '../run/request.ts';

/** A cut tool result's whole answer, stored: what the agent hands to a tool that downloads. */
export interface WholeAnswer {
  id: string;
  /** The first chunk's signed link (no key needed). */
  url: string;
  expires_at: string;
  format: 'ndjson';
  /** Chunks after the first are listed by `GET /results/{id}` (with the caller's key). */
  chunks: number | null;
}

/** How long a call waits for the first chunk when the caller's time limit says nothing. */
const DEFAULT_WAIT_MS = 60_000;

/**
 * The whole answer of a tool call whose rows were cut, as a stored result
 * (ndjson, the caller's own run, its limits and grants): started, then
 * waited for until its first chunk is in place, within the run's time
 * limit. Null when it did not get that far (the agent still has `fetch_all`).
 */
export async function wholeAnswer(deps: AppDeps, request: { caller: Caller; source: RunSource; scope: RequestScope; base: string; signal: AbortSignal }): Promise<WholeAnswer | null> {
  const options = requestRowOptions(deps.env, {}, { format: 'ndjson', stream: true }, request.caller);
  const id = await startResult(deps, { caller: request.caller, source: request.source, options, chunkRows: DEFAULT_CHUNK_ROWS, scope: request.scope, linkBase: request.base });
  if (!(await firstChunkWritten(deps, id, options.timeoutMs || DEFAULT_WAIT_MS, request.signal))) return null;
  const view = await viewResult(deps, request.caller, id);
  const first = view.chunks[0];
  if (!first) return null;
  return { id, url: first.url, expires_at: first.expires_at, format: 'ndjson', chunks: view.state === 'succeeded' ? view.chunks.length : null };
}
