import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { SluiceError } from '../../errors.ts';
import { mcpRowOptions } from '../../services/mcp/options.ts';
import { errorResult } from '../../services/mcp/result.ts';
import { type McpTool, toolsFor } from '../../services/mcp/tools.ts';
import type { McpCall } from './call.ts';
import { callConnectionsTool, callQueryTool, callSqlTool, callTablesTool } from './call-tools.ts';
import type { McpSdk } from './sdk.ts';
import { spanOf, withSpan } from '../../observability/request-context.ts';
import { NO_SPAN, errorCode } from '../../observability/tracing/span.ts';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Each MCP message is handled inside the `/mcp` request that carried it:
 * the route hands the transport what a call needs of that request (call.ts)
 * as `authInfo.extra`, and the handlers read it back here.
 */
export function authInfoOf(call: McpCall): AuthInfo {
  return { token: '', clientId: call.caller.name, scopes: [], extra: { call } };
}

function callOf(sdk: McpSdk, extra: Extra): McpCall {
  const call = extra.authInfo?.extra?.call as McpCall | undefined;
  if (!call) throw new sdk.McpError(sdk.ErrorCode.InternalError, 'No request context');
  return call;
}

const INSTRUCTIONS =
  'Sluice serves saved SQL queries as tools: each saved-query tool runs one published query with its parameters as arguments. ' +
  'When you may run SQL yourself, list_connections, list_tables and execute_sql (read-only) browse and query the connections you are granted. ' +
  'Results are capped; a cut result says how to fetch every row.';

/** What a session remembers between requests: the tool names it last listed (mapped names find their query here). */
export interface SessionTools {
  listed: Map<string, McpTool>;
}

/**
 * The MCP server of one session (the SDK's low-level `Server`: the tool
 * list is the caller's, worked out on every `tools/list`, which the
 * high-level `McpServer` with its fixed registrations cannot do).
 */
export function createMcpServer(sdk: McpSdk, version: string, tools: SessionTools): Server {
  const server = new sdk.Server({ name: 'sluice', version }, { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS });

  server.setRequestHandler(sdk.ListToolsRequestSchema, async (_request, extra) => {
    const listed = await callerTools(callOf(sdk, extra));
    tools.listed = new Map(listed.map((tool) => [tool.name, tool]));
    return { tools: listed.map(wireTool) };
  });

  server.setRequestHandler(sdk.CallToolRequestSchema, (request, extra): Promise<CallToolResult> => {
    const call = callOf(sdk, extra);
    return callTool(sdk, call, tools, request.params.name, request.params.arguments ?? {}, either(call.signal(), extra.signal));
  });
  return server;
}

/**
 * Runs a tool of the session's listing with its arguments, as the SDK's
 * `tools/call` handler and the direct path (direct-call.ts) both do: a
 * refusal or failure is the tool's error, an unknown tool a protocol error
 * (thrown, an `McpError`).
 */
export async function callTool(sdk: McpSdk, untraced: McpCall, tools: SessionTools, name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
  // The tool's run goes under its span, which goes under the `/mcp` request's.
  const span = spanOf(untraced.scope).child('sluice.mcp.tool', { 'sluice.mcp.tool.name': name });
  const call = span === NO_SPAN ? untraced : { ...untraced, scope: withSpan(untraced.scope, span) };
  try {
    // A tool the caller's listing lacks (a built-in included: a key without connection grants runs no SQL) is unknown.
    const tool = await toolOf(call, tools, name);
    if (tool?.builtin === 'execute_sql') return await callSqlTool(call, args, signal);
    if (tool?.builtin === 'list_tables') return await callTablesTool(call, args);
    if (tool?.builtin === 'list_connections') return await callConnectionsTool(call);
    if (!tool?.query) throw unknownTool(sdk, name);
    return await callQueryTool(call, tool.query, args, signal);
  } catch (err) {
    span.fail(errorCode(err));
    return failure(sdk, call, name, err);
  } finally {
    span.end();
  }
}

/**
 * Aborted when either is: the client went away, or cancelled the call.
 * Both live as long as the call's request, so the listeners go with them;
 * AbortSignal.any would also register the result for its weak bookkeeping,
 * a cost on every call.
 */
function either(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (a.aborted) return a;
  if (b.aborted) return b;
  const controller = new AbortController();
  const onA = () => controller.abort(a.reason);
  const onB = () => controller.abort(b.reason);
  a.addEventListener('abort', onA, { once: true });
  b.addEventListener('abort', onB, { once: true });
  return controller.signal;
}

const callerTools = ({ deps, caller }: McpCall) => toolsFor(deps, caller, mcpRowOptions(deps.env, caller).paging!.pageSize);

/**
 * The tool behind a name, from the session's last listing; listed again
 * (the caller's tools now) when the name is not there, as for a client that
 * calls without listing first.
 */
async function toolOf(call: McpCall, tools: SessionTools, name: string): Promise<McpTool | null> {
  let tool = tools.listed.get(name);
  if (!tool) {
    const listed = await callerTools(call);
    tools.listed = new Map(listed.map((entry) => [entry.name, entry]));
    tool = tools.listed.get(name);
  }
  return tool ?? null;
}

const unknownTool = (sdk: McpSdk, name: string) => new sdk.McpError(sdk.ErrorCode.InvalidParams, `Unknown tool: ${name}`);

/**
 * A refusal or failure as a tool error the agent can act on: the message and
 * every parameter problem. An unknown or unreachable query is an unknown
 * tool (a protocol error, as MCP asks). Anything unexpected is logged under
 * the request id and answered opaquely: driver messages can carry secrets.
 */
function failure(sdk: McpSdk, call: McpCall, name: string, err: unknown): CallToolResult {
  if (err instanceof sdk.McpError) throw err;
  if (err instanceof SluiceError) {
    if (err.code === 'query_not_found') throw unknownTool(sdk, name);
    return errorResult(err.message, err.extras as { errors?: Record<string, string>; detail?: unknown });
  }
  const error = err as Error;
  call.deps.logger.error({ ...call.scope, tool: name, err: { name: error.name, stack: error.stack } }, 'MCP tool call failed');
  return errorResult(`Internal server error (request ${call.scope.request_id})`);
}

function wireTool(tool: McpTool): Tool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    annotations: { title: tool.query ?? tool.name, readOnlyHint: tool.readOnly, openWorldHint: false },
  };
}
