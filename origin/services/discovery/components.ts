import { FORMATS, type Format } from '../../formats/index.ts';
import { bodySchema, executeMongoBody, executeSqlBody, resultsBody } from './bodies.ts';
import { catalogSchema } from './catalog.ts';
import type { JsonSchema } from './parameter-schema.ts';

/** The media type each format answers with (parameters such as `charset` left off). */
export const FORMAT_MEDIA_TYPES: Record<Format, string> = {
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  xml: 'application/xml',
  yaml: 'application/yaml',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  parquet: 'application/vnd.apache.parquet',
};

export const ref = (kind: 'schemas' | 'parameters' | 'responses' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

const text: JsonSchema = { type: 'string' };
const queryOption = (name: string, description: string, schema: JsonSchema) => ({ name, in: 'query', required: false, description, schema });

/** Body of each format in a rows answer: json is an array of objects; files are bytes. */
function rowsContent(): Record<string, { schema: JsonSchema }> {
  const content: Record<string, { schema: JsonSchema }> = {};
  for (const format of FORMATS) {
    const schema: JsonSchema =
      format === 'json'
        ? { oneOf: [{ type: 'array', items: { type: 'object' } }, ref('schemas', 'NoResults'), ref('schemas', 'DryRun')] }
        : format === 'xlsx' || format === 'parquet'
          ? { description: `A ${format} file` }
          : { ...text, description: `${format} text` };
    content[FORMAT_MEDIA_TYPES[format]] = { schema };
  }
  return content;
}

const jsonOf = (schema: JsonSchema) => ({ 'application/json': { schema } });

/** Shared parameters, schemas, responses and the API key scheme. */
export function components(): JsonSchema {
  return {
    securitySchemes: {
      ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A scoped API key (slc_...), an administrator token (slc_adm_..., also accepted as Authorization: Bearer) or the server key SLUICE_API_KEY' },
    },
    headers: {
      XPage: { description: 'The page answered (1-based)', schema: { type: 'integer' } },
      XPageSize: { description: 'Rows per page', schema: { type: 'integer' } },
      XHasMore: { description: 'true when another page exists', schema: { type: 'string', enum: ['true', 'false'] } },
      XBudgetRowsRemaining: { description: "Rows left of the key's rows_per_day when the run started (keys with that budget only)", schema: { type: 'integer' } },
      XBudgetSecondsRemaining: { description: "Database seconds left of the key's db_seconds_per_day when the run started (keys with that budget only)", schema: { type: 'number' } },
    },
    parameters: {
      Format: queryOption('format', 'Result format', { type: 'string', enum: [...FORMATS], default: 'json' }),
      Page: queryOption('page', '1-based page', { type: 'integer', minimum: 1, default: 1 }),
      PageSize: queryOption('page_size', 'Rows per page, at most SLUICE_MAX_PAGE_SIZE', { type: 'integer', minimum: 1, default: 10 }),
      Timeout: queryOption('timeout', 'Seconds before the statement is cancelled (504); can only lower the server limit', { type: 'number', exclusiveMinimum: 0 }),
      DryRun: queryOption('dry_run', 'Check everything and answer the engine planner\'s estimate instead of running (docs/reference/budgets.md)', { type: 'boolean', default: false }),
      Stream: queryOption('stream', 'Stream the whole result (csv, tsv, ndjson, parquet); not with page or page_size', { type: 'boolean', default: false }),
      Version: queryOption('version', 'Run this version instead of the published one (drafts: administrators only)', { type: 'integer', minimum: 1 }),
      ConnectionName: queryOption('connection_name', "The connection to run on; wins over the query's default", { type: 'string', minLength: 1 }),
    },
    schemas: {
      QueryError: {
        type: 'object',
        required: ['error'],
        properties: {
          error: text,
          detail: { ...text, description: "The database's message, credentials removed" },
          timeout: { type: 'number', description: 'Seconds (504)' },
          errors: { type: 'object', additionalProperties: text, description: 'Problems by parameter or field' },
          code: { type: 'string', enum: ['estimate_too_large', 'budget_exhausted'], description: "Only on a budget's refusals (403, 429)" },
          estimate: { type: 'object', description: "estimate_too_large: the planner's estimate" },
          budget: { type: 'string', enum: ['rows_per_day', 'db_seconds_per_day'], description: 'budget_exhausted: the budget spent' },
          spent: { type: 'number' },
          limit: { type: 'number' },
          retry_after: { type: 'integer', description: 'Seconds (429): to the quota period\'s end, or to midnight in the server\'s zone for a budget' },
        },
      },
      DryRun: {
        type: 'object',
        description: 'What dry_run=true answers: the checks passed, nothing ran (docs/reference/budgets.md)',
        required: ['dry_run', 'connection', 'dialect', 'statement_type', 'tables', 'parameters', 'estimate', 'would_refuse'],
        properties: {
          dry_run: { const: true },
          connection: text,
          dialect: text,
          statement_type: { ...text, description: 'The leading keyword (SELECT, INSERT...), or FIND' },
          tables: { type: ['array', 'null'], items: text },
          parameters: { type: 'object', description: 'The parameters as the run would bind them' },
          estimate: {
            type: 'object',
            required: ['rows', 'cost', 'source'],
            properties: { rows: { type: ['integer', 'null'] }, cost: { type: ['number', 'null'] }, source: { enum: ['planner', 'none'] } },
          },
          would_refuse: { type: ['object', 'null'], properties: { code: text, error: text }, description: "The key's budget the run would break; null: none" },
        },
      },
      ManagementError: {
        type: 'object',
        required: ['error', 'code', 'request_id'],
        properties: { error: text, code: text, request_id: { ...text, pattern: '^[0-9a-f]{12}$' } },
      },
      NoResults: { type: 'object', required: ['message'], properties: { message: { const: 'No results returned' } } },
      Health: {
        type: 'object',
        required: ['status', 'version', 'time_zone', 'utc_offset', 'store'],
        properties: {
          status: { enum: ['ok', 'degraded'], description: '`degraded` while the store is unreachable' },
          version: text,
          time_zone: { type: ['string', 'null'] },
          utc_offset: text,
          store: { enum: ['ok', 'unreachable'], description: 'Whether the PostgreSQL store (SLUICE_DATABASE_URL) answers; always `ok` for the embedded one' },
        },
      },
      Index: {
        type: 'object',
        required: ['name', 'version', 'links'],
        properties: {
          name: { const: 'Sluice' },
          version: text,
          links: {
            type: 'object',
            description: 'Where to go next: the interactive reference, the OpenAPI document, health; none needs a key',
            additionalProperties: text,
          },
        },
      },
      Catalog: bodySchema(catalogSchema),
      SchemaListing: {
        type: 'object',
        required: ['tables', 'truncated'],
        properties: {
          tables: { type: 'array', items: { type: 'object', properties: { name: text, type: text, columns: { type: 'array', items: { type: 'object' } } } } },
          truncated: { type: 'boolean', description: 'true when the connection has more than 5000 columns; the list is then cut off' },
        },
      },
      TableDdl: { type: 'object', properties: { connection: text, table: text, ddl: text } },
      ExecuteSqlBody: bodySchema(executeSqlBody),
      ExecuteMongoBody: bodySchema(executeMongoBody),
      ResultsBody: bodySchema(resultsBody),
      Result: {
        type: 'object',
        description: 'A stored result: its state, and a fresh signed link for each chunk written so far',
        required: ['id', 'state', 'format', 'connection', 'rows', 'bytes', 'truncated', 'chunks', 'error', 'created_at'],
        properties: {
          id: text,
          state: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired'] },
          format: { type: 'string', enum: ['csv', 'tsv', 'ndjson', 'parquet'] },
          query: { type: ['string', 'null'] },
          version: { type: ['integer', 'null'] },
          connection: text,
          rows: { type: 'integer' },
          bytes: { type: 'integer' },
          truncated: { type: 'boolean', description: 'SLUICE_STREAM_MAX_ROWS or the key\'s max_rows cut the rows' },
          chunks: {
            type: 'array',
            items: { type: 'object', properties: { index: { type: 'integer' }, rows: { type: 'integer' }, bytes: { type: 'integer' }, url: text, expires_at: text } },
          },
          error: { type: ['object', 'null'], properties: { error: text, detail: {} } },
          created_at: text,
          finished_at: { type: ['string', 'null'] },
          expires_at: { type: ['string', 'null'] },
        },
      },
    },
    responses: {
      Rows: {
        description: 'Rows in the requested format. Paged answers carry X-Page, X-Page-Size and X-Has-More; streamed ones are attachments. With dry_run=true: a DryRun object.',
        headers: {
          'X-Page': ref('headers', 'XPage'),
          'X-Page-Size': ref('headers', 'XPageSize'),
          'X-Has-More': ref('headers', 'XHasMore'),
          'X-Budget-Rows-Remaining': ref('headers', 'XBudgetRowsRemaining'),
          'X-Budget-Seconds-Remaining': ref('headers', 'XBudgetSecondsRemaining'),
        },
        content: rowsContent(),
      },
      QueryError: { description: 'A refused or failed request', content: jsonOf(ref('schemas', 'QueryError')) },
      ManagementError: { description: 'A refused or failed request; branch on code', content: jsonOf(ref('schemas', 'ManagementError')) },
      Json: { description: 'OK', content: jsonOf({ type: 'object' }) },
    },
  };
}
