import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { tablesOf, usableConnections } from '../../services/mcp/connections.ts';
import { mcpRowOptions } from '../../services/mcp/options.ts';
import { type RowsOutcome, errorResult, rowsResult, valueResult } from '../../services/mcp/result.ts';
import type { RowOptions } from '../../services/run/options.ts';
import { pageShape } from '../../services/run/page-body.ts';
import type { RunAnswer, RunSource } from '../../services/run/request.ts';
import { dryRun } from '../../services/run/dry-run.ts';
import { run } from '../../services/run/run.ts';
import { type WholeAnswer, wholeAnswer } from '../../services/mcp/whole-answer.ts';
import { FORMAT_PROBLEM, TOOL_FORMATS, type ToolFormat, formattedRows, isToolFormat } from '../../services/mcp/formatted-rows.ts';
import { SluiceError } from '../../errors.ts';
import type { McpCall } from './call.ts';

/**
 * The tool calls, each a run on the run path (services/run/run.ts) as its
 * HTTP twin makes it, so that an MCP call is a run like any other: a saved
 * query as `/q/<name>` (parameter rules, reachability, the statement guard,
 * admission by `max_concurrent` and quota, the response cache, the engine's
 * timeout, metrics and query log, run history and `/events`), `execute_sql`
 * as `/execute_sql` (always read-only), `list_tables` as
 * `/connections/{name}/schema`. Rate limits were counted on the `/mcp`
 * request itself. Runs are recorded with `transport: mcp`.
 */

/**
 * A saved query's tool: `connection_name` and `dry_run` are the request
 * options they are on `/q`, `format` how the rows are answered (reserved
 * names, never parameters); every other argument is a parameter.
 */
export async function callQueryTool(call: McpCall, query: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
  const { deps, caller } = call;
  const { connection_name, dry_run: dry, format = 'json', ...supplied } = args;
  // Checked by hand, not with zod: this is every saved-query call's path, and a schema pass per call costs (ADR 0029).
  const problems: Record<string, string> = {};
  if (connection_name !== undefined && (typeof connection_name !== 'string' || connection_name === '')) problems.connection_name = 'must be the name of a connection';
  if (dry !== undefined && typeof dry !== 'boolean') problems.dry_run = 'must be true or false';
  if (!isToolFormat(format)) problems.format = FORMAT_PROBLEM;
  if (Object.keys(problems).length > 0) return errorResult('Invalid arguments', { errors: problems });
  const connection = connection_name as string | undefined;
  const options = mcpRowOptions(deps.env, caller);
  const source: RunSource = { kind: 'saved', name: query, supplied, source: 'json', connection, signInToken: call.signInToken };
  if (dry) return dryRunResult(call, source, options, signal);
  const page = await pageOf(call, source, options, signal, format as ToolFormat);
  const fetchAll = () => `GET ${streamUrl(call, page.query, supplied, connection)} with your key`;
  const whole = page.truncated ? await wholeAnswerOf(call, { ...source, version: page.version ?? undefined }, signal) : null;
  return rowsResult(`${page.query} (version ${page.version})`, { ...page, cap: options.paging!.pageSize, maxBytes: deps.env.SLUICE_MCP_MAX_BYTES, fetchAll, whole });
}

/** How the rows are answered (services/mcp/formatted-rows.ts). */
const formatArgument = z.enum(TOOL_FORMATS, { error: FORMAT_PROBLEM }).default('json');

const sqlArguments = z.strictObject({
  sql: z.string({ error: 'is required: one read statement' }).min(1, 'is required: one read statement'),
  connection_name: z.string({ error: 'is required' }).min(1, 'is required'),
  params: z.record(z.string(), z.unknown(), { error: 'must be an object of marker values' }).optional(),
  dry_run: z.boolean({ error: 'must be true or false' }).optional(),
  format: formatArgument,
});

/** `execute_sql`: ad-hoc SQL as `/execute_sql` runs it, on a connection the caller is granted, and never a write. */
export async function callSqlTool(call: McpCall, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
  const parsed = sqlArguments.safeParse(args);
  if (!parsed.success) return errorResult('Invalid arguments', { errors: problemsOf(parsed.error) });
  const { deps, caller } = call;
  const { sql, connection_name: connection, params } = parsed.data;
  const options = mcpRowOptions(deps.env, caller);
  const source: RunSource = { kind: 'sql', sql, params: params ?? {}, connection };
  if (parsed.data.dry_run) return dryRunResult(call, source, options, signal, { readOnly: true });
  const page = await pageOf(call, source, options, signal, parsed.data.format, { readOnly: true });
  const fetchAll = () => `POST ${call.mainUrl('/execute_sql?stream=true&format=ndjson')} with your key and the same sql, params and connection_name`;
  const whole = page.truncated ? await wholeAnswerOf(call, source, signal) : null;
  return rowsResult(`SQL on ${connection}`, { ...page, cap: options.paging!.pageSize, maxBytes: deps.env.SLUICE_MCP_MAX_BYTES, fetchAll, whole });
}

const tablesArguments = z.strictObject({
  connection_name: z.string({ error: 'is required' }).min(1, 'is required'),
  database: z.string().min(1, 'must not be empty').optional(),
});

export async function callTablesTool(call: McpCall, args: Record<string, unknown>): Promise<CallToolResult> {
  const parsed = tablesArguments.safeParse(args);
  if (!parsed.success) return errorResult('Invalid arguments', { errors: problemsOf(parsed.error) });
  const listing = await tablesOf(call.deps, call.caller, parsed.data.connection_name, parsed.data.database);
  const count = listing.tables.length;
  return valueResult(`${count} table${count === 1 ? '' : 's'} on ${parsed.data.connection_name}${listing.truncated ? ' (cut off: the connection has more than 5000 columns)' : ''}.`, { ...listing });
}

export async function callConnectionsTool(call: McpCall): Promise<CallToolResult> {
  const usable = await usableConnections(call.deps, call.caller);
  return valueResult(`${usable.length} connection${usable.length === 1 ? '' : 's'} you may run SQL on.`, { connections: usable });
}

/** A dry run (services/run/dry-run.ts) of the call: every check of the run, then the planner's estimate; nothing runs. */
async function dryRunResult(call: McpCall, source: RunSource, options: RowOptions, signal: AbortSignal, { readOnly = false } = {}): Promise<CallToolResult> {
  const { answer } = await dryRun(call.deps, { caller: call.caller, source, options: { ...options, dryRun: true }, transport: 'mcp', signal, scope: call.scope, readOnly });
  const { rows, cost } = answer.estimate;
  const estimate = rows === null && cost === null ? `${answer.dialect} gives no planner estimate` : `the planner estimates ${rows ?? 'unknown'} rows (cost ${cost ?? 'unknown'})`;
  const refusal = answer.would_refuse ? ` The run would be refused: ${answer.would_refuse.error}` : '';
  return valueResult(`Dry run on ${answer.connection}: nothing ran; ${estimate}.${refusal}`, { ...answer });
}

type ToolPage = Pick<RowsOutcome, 'rows' | 'truncated' | 'leftOut' | 'cutAtBytes'> & { query: string; version: number | null };

/**
 * One page of the source's rows as an MCP tool takes them: a JSON page (an
 * empty result's is `{message}`) written again in the call's format, whether
 * more rows exist, how many, and whether its byte budget cut it, read from
 * the page's own headers, which a cached page keeps. Whatever the format,
 * the run reads a JSON page: the tool's structured rows come from it, and
 * its page is cached once for every format.
 */
async function pageOf(call: McpCall, source: RunSource, options: RowOptions, signal: AbortSignal, format: ToolFormat, { readOnly = false } = {}): Promise<ToolPage> {
  const { deps, caller } = call;
  const answer: RunAnswer = await run(deps, { caller, source, options, transport: 'mcp', signal, scope: call.scope, readOnly });
  if (answer.kind !== 'page') throw new Error('an MCP tool reads one page');
  const body = answer.body === null ? '' : Buffer.from(answer.body).toString('utf8');
  const headers = new Map(Object.entries(answer.headers).map(([name, value]) => [name.toLowerCase(), value]));
  const shape = pageShape((name) => headers.get(name.toLowerCase()));
  const cutAtBytes = shape.cutAtBytes !== null;
  return {
    rows: formattedRows(format, body),
    truncated: shape.hasMore,
    leftOut: cutAtBytes ? null : shape.leftOut,
    cutAtBytes,
    query: answer.label.query ?? '',
    version: answer.label.version,
  };
}

/**
 * The whole answer of a cut call as a stored result, or null when it could
 * not be had (refused by a limit the page did not meet, or slower than the
 * time limit): the preview and `fetch_all` still stand.
 */
async function wholeAnswerOf(call: McpCall, source: RunSource, signal: AbortSignal): Promise<WholeAnswer | null> {
  try {
    return await wholeAnswer(call.deps, { caller: call.caller, source, scope: call.scope, base: new URL(call.mainUrl('/')).origin, signal });
  } catch (err) {
    if (!(err instanceof SluiceError)) call.deps.logger.warn({ ...call.scope, err: { name: (err as Error).name, stack: (err as Error).stack } }, 'storing a cut tool result failed');
    return null;
  }
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

/** `/q/<name>` with the call's arguments, `format=ndjson&stream=true`: every row, streamed from the cursor. */
function streamUrl(call: McpCall, query: string, supplied: Record<string, unknown>, connection: string | undefined): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(supplied)) {
    if (value !== null && typeof value !== 'object') search.set(name, String(value));
  }
  if (connection) search.set('connection_name', connection);
  search.set('format', 'ndjson');
  search.set('stream', 'true');
  return call.mainUrl(`/q/${encodeURIComponent(query)}?${search}`);
}
