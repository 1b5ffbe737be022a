import { ref } from './components.ts';
import { type Endpoint, queryParam } from './operations.ts';

/** Tags of the fixed endpoints, in the order the reference lists them. */
export const STATIC_TAGS = [
  { name: 'Server', description: 'Health and this reference' },
  { name: 'Queries', description: 'Ad-hoc SQL and the catalog of saved queries' },
  { name: 'Connections', description: 'Kept unversioned routes for browsing a connection' },
  { name: 'MCP', description: 'The Model Context Protocol endpoint for AI agents (Streamable HTTP): saved queries as tools' },
];

const json = (schema: string) => ({ 200: { description: 'OK', content: { 'application/json': { schema: ref('schemas', schema) } } } });
const ROW_OPTIONS = ['Format', 'Page', 'PageSize', 'Timeout', 'Stream'].map((name) => ref('parameters', name));

/** The query endpoints every server has, whoever calls. */
export const STATIC_ENDPOINTS: Endpoint[] = [
  {
    method: 'get',
    path: '/',
    id: 'getIndex',
    tag: 'Server',
    summary: 'What this server is and where to start: /docs, /openapi.json, /health',
    public: true,
    family: 'query',
    responses: json('Index'),
  },
  {
    method: 'get',
    path: '/health',
    id: 'getHealth',
    tag: 'Server',
    summary: 'Server status, version and time zone',
    public: true,
    family: 'query',
    responses: json('Health'),
  },
  {
    method: 'get',
    path: '/openapi.json',
    id: 'getOpenApi',
    tag: 'Server',
    summary: 'This document; its saved-query section lists what the calling key reaches',
    public: true,
    family: 'query',
    responses: { 200: { description: 'An OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } } },
  },
  {
    method: 'get',
    path: '/docs',
    id: 'getDocs',
    tag: 'Server',
    summary: 'Interactive reference built from /openapi.json',
    public: true,
    family: 'query',
    responses: { 200: { description: 'An HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
  },
  {
    method: 'get',
    path: '/metrics',
    id: 'getMetrics',
    tag: 'Server',
    summary: 'Prometheus text metrics; with SLUICE_METRICS_TOKEN set, only with Authorization: Bearer <token>',
    public: true,
    family: 'query',
    responses: { 200: { description: 'Text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } } },
  },
  {
    method: 'get',
    path: '/events',
    id: 'getEvents',
    tag: 'Server',
    summary: 'Every run the caller may see, as Server-Sent Events (event: run); Last-Event-ID resumes',
    family: 'query',
    responses: { 200: { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } } },
  },
  {
    method: 'post',
    path: '/execute_sql',
    id: 'executeSql',
    tag: 'Queries',
    summary: 'Run one ad-hoc statement',
    description:
      'Read statements only unless SLUICE_ALLOW_WRITES=1. Paged by default; `stream=true` streams csv, tsv, ndjson or parquet. Options in the query string win over the body.',
    family: 'query',
    parameters: ROW_OPTIONS,
    body: { schema: ref('schemas', 'ExecuteSqlBody'), required: true },
    responses: { 200: ref('responses', 'Rows') },
  },
  {
    method: 'post',
    path: '/execute_mongo',
    id: 'executeMongo',
    tag: 'Queries',
    summary: 'Run one ad-hoc document query (a find) on a mongodb connection',
    description:
      'Reads only. Refuses $where, $function, $accumulator, $lookup, $unionWith, $out and $merge. Paged by default; `stream=true` streams csv, tsv, ndjson (whole documents) or parquet. Same grants as /execute_sql.',
    family: 'query',
    parameters: ROW_OPTIONS,
    body: { schema: ref('schemas', 'ExecuteMongoBody'), required: true },
    responses: { 200: ref('responses', 'Rows') },
  },
  {
    method: 'get',
    path: '/catalog',
    id: 'getCatalog',
    tag: 'Queries',
    summary: 'The published saved queries this caller reaches, and what it may do',
    family: 'query',
    responses: json('Catalog'),
  },
  {
    method: 'get',
    path: '/connections/{name}/schema',
    id: 'getConnectionSchema',
    tag: 'Connections',
    summary: 'Tables and columns of a connection',
    description:
      'Deprecated: the successor is GET /api/v1/connections/{name}/schema, which adds descriptions. Answers carry `Deprecation` and `Link: <...>; rel="successor-version"`. Granted scoped keys may still use this route.',
    deprecated: true,
    family: 'query',
    parameters: [queryParam('database', { type: 'string' }, 'Another database on the same server, where the type has several')],
    responses: json('SchemaListing'),
  },
  {
    method: 'get',
    path: '/connections/{name}/table_ddl',
    id: 'getConnectionTableDdl',
    tag: 'Connections',
    summary: 'The DDL of one table',
    family: 'query',
    parameters: [queryParam('table', { type: 'string', minLength: 1 }, 'The table', true)],
    responses: json('TableDdl'),
  },
  ...(['post', 'get', 'delete'] as const).map(
    (method): Endpoint => ({
      method,
      path: '/mcp',
      id: `${method}Mcp`,
      tag: 'MCP',
      summary: {
        post: 'MCP messages (JSON-RPC); without Mcp-Session-Id, an initialize request starts a session',
        get: "The session's stream of server notifications (notifications/tools/list_changed)",
        delete: 'End the session',
      }[method],
      description: 'Authenticated like every other route (X-API-Key or Authorization: Bearer). See docs/guides/mcp.md.',
      family: 'query',
      parameters: method === 'post' ? [] : [{ name: 'Mcp-Session-Id', in: 'header', required: true, schema: { type: 'string' } }],
      body: method === 'post' ? { schema: { type: 'object', description: 'A JSON-RPC message' }, required: true } : undefined,
      responses:
        method === 'get'
          ? { 200: { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } } }
          : { 200: { description: 'The JSON-RPC answer', content: { 'application/json': { schema: { type: 'object' } } } } },
    }),
  ),
];
