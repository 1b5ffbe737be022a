import type { Caller } from '../../access/caller.ts';
import type { Env } from '../../env.ts';
import { type RowOptions, parseRowOptions, rowLimits } from '../run/options.ts';

/**
 * Rows counted after a cut tool result, so its note can say how many were
 * left out: past this many it says "more than", so that a call on a huge
 * table does not read all of it.
 */
export const MCP_COUNT_BEYOND = 100_000;

/**
 * The row options of an MCP tool call: one page of JSON rows, as many as
 * SLUICE_MCP_MAX_ROWS allows, never more than a page may hold
 * (SLUICE_MAX_PAGE_SIZE, or the key's `max_rows` when lower), the rows after
 * it counted; the server's timeout lowered by the key's `query_timeout`, as
 * on `/q`. The page also ends at half of SLUICE_MCP_MAX_BYTES: an answer
 * gives its rows twice (structured, and as text), and is cut to the exact
 * limit once built (result.ts).
 */
export function mcpRowOptions(
  env: Pick<Env, 'SLUICE_MCP_MAX_ROWS' | 'SLUICE_MCP_MAX_BYTES' | 'SLUICE_MAX_PAGE_SIZE' | 'SLUICE_QUERY_TIMEOUT' | 'SLUICE_STREAM_MAX_ROWS'>,
  caller: Pick<Caller, 'key'>,
): RowOptions {
  const limits = rowLimits(env, caller);
  const options = parseRowOptions({ format: 'json', page_size: Math.min(env.SLUICE_MCP_MAX_ROWS, limits.maxPageSize) }, {}, limits);
  return { ...options, paging: { ...options.paging!, countBeyond: MCP_COUNT_BEYOND, maxBytes: Math.floor(env.SLUICE_MCP_MAX_BYTES / 2) } };
}
