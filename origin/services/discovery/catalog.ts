import { z } from 'zod';
import { callerAccess, canWrite } from '../../access/reachability.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { describeDefinitions } from '../../../shared/parameters/index.ts';
import { discoverQueries } from './reachable.ts';

/** `GET /catalog`: the answer's shape, also the schema `/openapi.json` documents. */
export const catalogSchema = z.object({
  queries: z.array(
    z.object({
      name: z.string(),
      version: z.number().int().describe('The published version'),
      description: z.string().nullable(),
      tags: z.array(z.string()),
      connection_name: z.string().nullable().describe('The default connection; null when the request must name one'),
      parameters: z.record(z.string(), z.unknown()).describe('Parameter rules as the v1 API writes them (alias type names)'),
      cache_ttl: z.number().int().positive().nullable().describe('Seconds; null when responses are not cached'),
      can_write: z.boolean().describe('This caller may run the query, and its SQL is a write the server allows'),
      collection: z.string().nullable(),
      columns: z
        .array(z.object({ name: z.string(), description: z.string().nullable() }))
        .describe("The result's columns its SELECT names (best effort), with the connection's description of each, or null"),
    }),
  ),
  caller: z.object({
    name: z.string().describe('`admin` for the server key, the key name, `-` with no key configured'),
    admin: z.boolean(),
    allow_writes: z.boolean(),
    allowed_write_ops: z.array(z.string()).nullable().describe('null: every write'),
    rate_limit: z.string().nullable().describe('`N/period`; null: none'),
    server_rate_limit: z.string().nullable().describe('`N/period`; null: none'),
    budget: z
      .object({ max_estimated_rows: z.number().nullable(), rows_per_day: z.number().nullable(), db_seconds_per_day: z.number().nullable() })
      .nullable()
      .describe("The key's budget of database work; null: none"),
  }),
});

export type Catalog = z.infer<typeof catalogSchema>;

/**
 * The published queries this caller reaches, by name, and what the caller may
 * do. Never SQL text. `cache_ttl` 0 reads as null (not cached).
 */
export async function catalog(deps: AppDeps, caller: Caller): Promise<Catalog> {
  const queries = await discoverQueries(deps, caller);
  return {
    queries: queries.map((q) => ({
      name: q.name,
      version: q.version,
      description: q.description,
      tags: q.tags,
      connection_name: q.connectionName,
      parameters: q.rules ? describeDefinitions(q.rules) : q.parameters,
      cache_ttl: q.cacheTtl !== null && q.cacheTtl > 0 ? q.cacheTtl : null,
      can_write: q.write && canWrite(deps.env, caller, q),
      collection: q.collection,
      columns: q.columns,
    })),
    caller: callerAccess(deps.env, caller),
  };
}
