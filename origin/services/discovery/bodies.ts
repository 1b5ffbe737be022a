import { z } from 'zod';
import { FORMATS } from '../../formats/index.ts';
import { rowOptionFields } from '../run/options.ts';
import type { JsonSchema } from './parameter-schema.ts';

/**
 * Request bodies of the query endpoints, as documented. The routes keep their
 * schemas to themselves, so these mirror them field for field (a test sends
 * every documented field to each route); `format` is listed as the values
 * `parseRowOptions` accepts.
 */
const rowOptions = {
  ...rowOptionFields,
  format: z.enum(FORMATS).optional().describe('Result format (default json); the query string wins over the body'),
  timeout: rowOptionFields.timeout.describe('Seconds; can only lower the server limit'),
  page: rowOptionFields.page.describe('1-based page (default 1)'),
  page_size: rowOptionFields.page_size.describe('Rows per page (default 10)'),
  stream: rowOptionFields.stream.describe('true streams the whole result (csv, tsv, ndjson, parquet)'),
  dry_run: rowOptionFields.dry_run.describe("true checks everything and answers the engine planner's estimate instead of running"),
};

/** `POST /execute_sql` */
export const executeSqlBody = z.strictObject({
  sql: z.string().describe('One statement; `:name` markers are bound from params'),
  params: z.record(z.string(), z.unknown()).optional().describe('A value for every `:name` marker'),
  connection_name: z.string().min(1).describe('The connection to run on'),
  ...rowOptions,
});

const whole = z.number().int().min(0);

/** `POST /execute_mongo` */
export const executeMongoBody = z.strictObject({
  connection_name: z.string().min(1).describe('A mongodb connection'),
  collection: z.string().describe('The collection to read'),
  filter: z.record(z.string(), z.unknown()).optional().describe('A find filter; a string that is exactly ":name" is bound from params as a value'),
  projection: z.record(z.string(), z.unknown()).optional().describe('Fields to return (1) or leave out (0)'),
  sort: z.record(z.string(), z.unknown()).optional().describe('Field -> 1 or -1'),
  limit: whole.optional().describe("The query's own row window: at most this many documents (0: no limit)"),
  skip: whole.optional().describe('Documents skipped before the window'),
  params: z.record(z.string(), z.unknown()).optional().describe('A single value (or array of values) for every ":name" in the filter; objects are refused'),
  ...rowOptions,
});

/** `POST /q/<name>`; `params` is replaced by each query's own parameters. */
export const runQueryBody = z.strictObject({
  params: z.record(z.string(), z.unknown()).optional(),
  connection_name: z.string().min(1).optional().describe("Wins over the query's default connection"),
  version: z.union([z.string(), z.number()]).optional().describe('Runs this version instead of the published one'),
  ...rowOptions,
});

/** `POST /results` */
export const resultsBody = z.strictObject({
  sql: z.string().optional().describe('One ad-hoc statement (with connection_name), as /execute_sql takes it'),
  query: z.string().optional().describe('A saved query by name, as /q/{name} runs it'),
  version: z.number().int().min(1).optional().describe('With query: this version instead of the published one'),
  mongo: z
    .strictObject({
      collection: z.string(),
      filter: z.record(z.string(), z.unknown()).optional(),
      projection: z.record(z.string(), z.unknown()).optional(),
      sort: z.record(z.string(), z.unknown()).optional(),
      limit: whole.optional(),
      skip: whole.optional(),
    })
    .optional()
    .describe('A find on a mongodb connection (with connection_name), as /execute_mongo takes it'),
  params: z.record(z.string(), z.unknown()).optional().describe('Marker or parameter values'),
  connection_name: z.string().min(1).optional().describe('The connection; with query, wins over its default'),
  format: z.enum(['csv', 'tsv', 'ndjson', 'parquet']).optional().describe('The chunks\' format (default ndjson)'),
  wait: z.number().int().min(0).max(60).optional().describe('Seconds to wait for the result to finish before answering 202 (default 10)'),
  chunk_rows: z.number().int().min(1).optional().describe('Rows per chunk (default 1,000,000); each chunk is a whole file of its format'),
  timeout: rowOptionFields.timeout.describe('Seconds; can only lower the server limit'),
  dry_run: z.boolean().optional().describe("true checks everything and answers the engine planner's estimate; nothing runs or is stored"),
});

/** A request body's JSON Schema from its zod schema, as the client sends it. */
export function bodySchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return json;
}
