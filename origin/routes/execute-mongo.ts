import { Hono } from 'hono';
import { z } from 'zod';
import { readBody } from '../http/body.ts';
import type { AppEnv } from '../http/context.ts';
import { streamIfAsync } from '../http/result-response.ts';
import { respondRun } from '../http/run-response.ts';
import { requestRowOptions, rowOptionFields } from '../services/run/options.ts';

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
  const caller = c.get('caller');
  const { connection_name: connection, collection, filter, projection, sort } = body;
  return respondRun(c, {
    caller,
    source: { kind: 'find', connection, collection, filter, projection, sort, skip: body.skip ?? 0, limit: body.limit ?? 0, params: body.params ?? {} },
    options: requestRowOptions(c.get('deps').env, streamIfAsync(c, c.req.query()), body, caller),
    transport: 'http',
  });
});
