import type { Caller } from '../../access/caller.ts';
import type { Env } from '../../env.ts';
import { type RowOptions, parseRowOptions, rowLimits } from '../run/options.ts';

/**
 * The row options of an MCP tool call: one page of JSON rows, as many as
 * SLUICE_MCP_MAX_ROWS allows, never more than a page may hold
 * (SLUICE_MAX_PAGE_SIZE, or the key's `max_rows` when lower); the server's
 * timeout lowered by the key's `query_timeout`, as on `/q`.
 */
export function mcpRowOptions(env: Pick<Env, 'SLUICE_MCP_MAX_ROWS' | 'SLUICE_MAX_PAGE_SIZE' | 'SLUICE_QUERY_TIMEOUT' | 'SLUICE_STREAM_MAX_ROWS'>, caller: Pick<Caller, 'key'>): RowOptions {
  const limits = rowLimits(env, caller);
  return parseRowOptions({ format: 'json', page_size: Math.min(env.SLUICE_MCP_MAX_ROWS, limits.maxPageSize) }, {}, limits);
}
