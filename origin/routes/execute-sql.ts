import { Hono } from 'hono';
import { z } from 'zod';
import { readBody } from '../http/body.ts';
import type { AppEnv } from '../http/context.ts';
import { streamIfAsync } from '../http/result-response.ts';
import { respondRun } from '../http/run-response.ts';
import { requestRowOptions, rowOptionFields } from '../services/run/options.ts';

const bodySchema = z.strictObject({
  sql: z.string({ error: 'sql is required' }),
  params: z.record(z.string(), z.unknown()).optional(),
  connection_name: z.string({ error: 'connection_name is required' }).min(1, 'connection_name is required'),
  ...rowOptionFields,
});

/**
 * POST /execute_sql: one ad-hoc statement, paged or streamed, in any format;
 * recorded in history with no query. A scoped key needs a `connections`
 * grant of the connection; its limits apply (origin/services/run/options.ts).
 */
export const executeSql = new Hono<AppEnv>().post('/execute_sql', async (c) => {
  const body = await readBody(c, bodySchema);
  const caller = c.get('caller');
  return respondRun(c, {
    caller,
    source: { kind: 'sql', sql: body.sql, params: body.params ?? {}, connection: body.connection_name },
    options: requestRowOptions(c.get('deps').env, streamIfAsync(c, c.req.query()), body, caller),
    transport: 'http',
  });
});
