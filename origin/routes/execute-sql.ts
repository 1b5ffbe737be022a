import { Hono } from 'hono';
import { z } from 'zod';
import { readBody } from '../http/body.ts';
import type { AppEnv } from '../http/context.ts';
import { pageResponse, streamResponse } from '../http/rows-response.ts';
import { parseRowOptions } from '../services/query/options.ts';
import { runPage, runStream } from '../services/query/run-sql.ts';

const scalarOption = z.union([z.string(), z.number(), z.boolean()]).optional();

const bodySchema = z.strictObject({
  sql: z.string({ error: 'sql is required' }),
  params: z.record(z.string(), z.unknown()).optional(),
  connection_name: z.string({ error: 'connection_name is required' }).min(1, 'connection_name is required'),
  format: z.string().optional(),
  timeout: scalarOption,
  page: scalarOption,
  page_size: scalarOption,
  stream: scalarOption,
});

/** POST /execute_sql: one ad-hoc statement, paged or streamed, in any format. */
export const executeSql = new Hono<AppEnv>().post('/execute_sql', async (c) => {
  const deps = c.get('deps');
  const body = await readBody(c, bodySchema);
  const options = parseRowOptions(c.req.query(), body, {
    maxPageSize: deps.env.SLUICE_MAX_PAGE_SIZE,
    serverTimeoutSeconds: deps.env.SLUICE_QUERY_TIMEOUT,
  });
  const input = {
    sql: body.sql,
    params: body.params ?? {},
    connection: body.connection_name,
    options,
    signal: c.req.raw.signal,
  };
  if (options.paging === null) return streamResponse(await runStream(deps, input), options.format, 'result');
  const { response } = await pageResponse(c, await runPage(deps, input), options.format, options.paging, 'result');
  return response;
});
