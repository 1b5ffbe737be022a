import type { Context } from 'hono';
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { presentedSignInToken } from '../../access/jwt.ts';
import { admitted } from '../../http/admission.ts';
import type { AppEnv } from '../../http/context.ts';
import { requestScopeOf } from '../../http/request-scope.ts';
import { respondCached } from '../../http/respond-cached.ts';
import { respondRows, respondSource } from '../../http/respond-rows.ts';
import { cutAtBytesOf, leftOutOf } from '../../http/rows-response.ts';
import { tablesOf, usableConnections } from '../../services/mcp/connections.ts';
import { mcpRowOptions } from '../../services/mcp/options.ts';
import { type RowsOutcome, errorResult, rowsResult, valueResult } from '../../services/mcp/result.ts';
import { prepareQueryRun } from '../../services/queries/run.ts';
import { documentRows } from '../../services/run/run-documents.ts';
import { prepareAdhocRun } from '../../services/run/adhoc.ts';

/**
 * The tool calls, each on the run path of its HTTP twin, so that an MCP
 * call is a run like any other: `/q/<name>` for a saved query (parameter
 * rules, reachability, the statement guard, admission by `max_concurrent`
 * and quota, the response cache, the engine's timeout, metrics and query
 * log, run history and `/events`), `/execute_sql` for `execute_sql` (always
 * read-only), `/connections/{name}/schema` for `list_tables`. Rate limits
 * were counted on the `/mcp` request itself. Runs are recorded with
 * `transport: mcp`.
 */

/** A saved query's tool: `connection_name` is the request option it is on `/q`; every other argument is a parameter. */
export async function callQueryTool(c: Context<AppEnv>, query: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
  const deps = c.get('deps');
  const caller = c.get('caller');
  const { connection_name: connection, ...supplied } = args;
  if (connection !== undefined && (typeof connection !== 'string' || connection === '')) {
    return errorResult('Invalid arguments', { errors: { connection_name: 'must be the name of a connection' } });
  }
  const options = mcpRowOptions(deps.env, caller);
  const prepared = await prepareQueryRun(deps, {
    name: query,
    supplied,
    source: 'json',
    connection,
    options,
    caller,
    signInToken: presentedSignInToken((header) => c.req.header(header)),
  });
  const label = { query: prepared.query, version: prepared.version, filename: 'result', transport: 'mcp' as const };
  const response = await admitted(c, false, () =>
    respondCached(c, prepared, () =>
      prepared.kind === 'documents'
        ? respondSource(c, documentRows(deps, { ...prepared.input, signal, scope: requestScopeOf(c) }), label)
        : respondRows(c, { ...prepared.input, signal, scope: requestScopeOf(c) }, label),
    ),
  );
  const page = await pageOf(response);
  const fetchAll = `GET ${streamUrl(c, prepared.query, supplied, connection)} with your key`;
  return rowsResult(`${prepared.query} (version ${prepared.version})`, { ...page, cap: options.paging!.pageSize, maxBytes: deps.env.SLUICE_MCP_MAX_BYTES, fetchAll });
}

const sqlArguments = z.strictObject({
  sql: z.string({ error: 'is required: one read statement' }).min(1, 'is required: one read statement'),
  connection_name: z.string({ error: 'is required' }).min(1, 'is required'),
  params: z.record(z.string(), z.unknown(), { error: 'must be an object of marker values' }).optional(),
});

/** `execute_sql`: ad-hoc SQL as `/execute_sql` runs it, on a connection the caller is granted, and never a write. */
export async function callSqlTool(c: Context<AppEnv>, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
  const parsed = sqlArguments.safeParse(args);
  if (!parsed.success) return errorResult('Invalid arguments', { errors: problemsOf(parsed.error) });
  const deps = c.get('deps');
  const caller = c.get('caller');
  const { sql, connection_name: connection, params } = parsed.data;
  const options = mcpRowOptions(deps.env, caller);
  const input = await prepareAdhocRun(deps, caller, { sql, params: params ?? {}, connection, options, signal, scope: requestScopeOf(c) }, { readOnly: true });
  const response = await admitted(c, false, () => respondRows(c, input, { query: null, version: null, filename: 'result', transport: 'mcp' }));
  const page = await pageOf(response);
  const fetchAll = `POST ${mainUrl(c, '/execute_sql?stream=true&format=ndjson')} with your key and the same sql, params and connection_name`;
  return rowsResult(`SQL on ${connection}`, { ...page, cap: options.paging!.pageSize, maxBytes: deps.env.SLUICE_MCP_MAX_BYTES, fetchAll });
}

const tablesArguments = z.strictObject({
  connection_name: z.string({ error: 'is required' }).min(1, 'is required'),
  database: z.string().min(1, 'must not be empty').optional(),
});

export async function callTablesTool(c: Context<AppEnv>, args: Record<string, unknown>): Promise<CallToolResult> {
  const parsed = tablesArguments.safeParse(args);
  if (!parsed.success) return errorResult('Invalid arguments', { errors: problemsOf(parsed.error) });
  const listing = await tablesOf(c.get('deps'), c.get('caller'), parsed.data.connection_name, parsed.data.database);
  const count = listing.tables.length;
  return valueResult(`${count} table${count === 1 ? '' : 's'} on ${parsed.data.connection_name}${listing.truncated ? ' (cut off: the connection has more than 5000 columns)' : ''}.`, { ...listing });
}

export async function callConnectionsTool(c: Context<AppEnv>): Promise<CallToolResult> {
  const usable = await usableConnections(c.get('deps'), c.get('caller'));
  return valueResult(`${usable.length} connection${usable.length === 1 ? '' : 's'} you may run SQL on.`, { connections: usable });
}

/** A page answer's rows (JSON objects; an empty result answers `{message}`), whether more rows exist, how many, and whether its byte budget cut it. */
async function pageOf(response: Response): Promise<Pick<RowsOutcome, 'rows' | 'truncated' | 'leftOut' | 'cutAtBytes'>> {
  const body: unknown = JSON.parse(await response.text());
  const cutAtBytes = cutAtBytesOf(response) !== null;
  return { rows: Array.isArray(body) ? body : [], truncated: response.headers.get('x-has-more') === 'true', leftOut: cutAtBytes ? null : leftOutOf(response), cutAtBytes };
}

/** Zod's problems by argument name, one line each (unknown arguments named too). */
function problemsOf(error: z.ZodError): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys) problems[key] = 'is not an argument of this tool';
    else problems[String(issue.path[0] ?? 'arguments')] ??= issue.message;
  }
  return problems;
}

/**
 * An address on the origin's main port: a call that came in on
 * SLUICE_MCP_PORT, which serves only `/mcp`, is pointed at SLUICE_PORT.
 */
function mainUrl(c: Context<AppEnv>, path: string): string {
  const url = new URL(path, c.req.url);
  const ports = c.get('deps').ports;
  if (ports?.mcp !== undefined && ports.main !== undefined && url.port === String(ports.mcp)) url.port = String(ports.main);
  return url.toString();
}

/** `/q/<name>` with the call's arguments, `format=ndjson&stream=true`: every row, streamed from the cursor. */
function streamUrl(c: Context<AppEnv>, query: string, supplied: Record<string, unknown>, connection: string | undefined): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(supplied)) {
    if (value !== null && typeof value !== 'object') search.set(name, String(value));
  }
  if (connection) search.set('connection_name', connection);
  search.set('format', 'ndjson');
  search.set('stream', 'true');
  return mainUrl(c, `/q/${encodeURIComponent(query)}?${search}`);
}
