import { Hono } from 'hono';
import { z } from 'zod';
import { admitted } from '../http/admission.ts';
import { clientSignal } from '../http/client-signal.ts';
import { requestScopeOf } from '../http/request-scope.ts';
import { readBody } from '../http/body.ts';
import type { AppEnv } from '../http/context.ts';
import { respondSource } from '../http/respond-rows.ts';
import { prepareAdhocDocuments } from '../services/documents/prepare.ts';
import { requestRowOptions, rowOptionFields } from '../services/run/options.ts';
import { documentRows } from '../services/run/run-documents.ts';

const whole = (name: string) => z.number({ error: `${name} must be a whole number of at least 0` }).int(`${name} must be a whole number of at least 0`).min(0, `${name} must be a whole number of at least 0`).optional();

const bodySchema = z.strictObject({
  connection_name: z.string({ error: 'connection_name is required' }).min(1, 'connection_name is required'),
  collection: z.unknown(),
  filter: z.unknown().optional(),
  projection: z.unknown().optional(),
  sort: z.unknown().optional(),
  limit: whole('limit'),
  skip: whole('skip'),
  params: z.record(z.string(), z.unknown()).optional(),
  ...rowOptionFields,
});

/**
 * POST /execute_mongo: one ad-hoc find on a mongodb connection, paged or
 * streamed, in any format, answered as `/execute_sql` answers; recorded in
 * history with no query. The same grants as ad-hoc SQL.
 */
export const executeMongo = new Hono<AppEnv>().post('/execute_mongo', async (c) => {
  const body = await readBody(c, bodySchema);
  const deps = c.get('deps');
  const caller = c.get('caller');
  const options = requestRowOptions(deps.env, c.req.query(), body, caller);
  const query = await prepareAdhocDocuments(deps, caller, {
    connection: body.connection_name,
    collection: body.collection,
    filter: body.filter,
    projection: body.projection,
    sort: body.sort,
    skip: body.skip ?? 0,
    limit: body.limit ?? 0,
    params: body.params ?? {},
  });
  const input = { connection: body.connection_name, query, options, signal: clientSignal(c), scope: requestScopeOf(c) };
  return admitted(c, options.stream, () =>
    respondSource(c, documentRows(deps, input), { query: null, version: null, filename: 'result' }),
  );
});
