import type { Context } from 'hono';
import { CLIENT_LEFT, onClientGone } from '../../http/client-signal.ts';
import type { AppEnv } from '../../http/context.ts';
import type { McpCall } from './call.ts';
import type { McpSdk } from './sdk.ts';
import { callTool } from './server.ts';
import type { Session } from './sessions.ts';

/**
 * `tools/call`, the message an agent sends most, answered on the run path
 * without the SDK's transport (ADR 0029): the SDK would build a fetch
 * Request around the Node one, validate the message three times with zod,
 * copy the tool's result through a fourth schema and answer with a Response
 * we made ourselves. A call takes this path only when it is exactly what the
 * transport would accept without a word (one request, in a session, the
 * headers it asks for); anything else, and every other message, goes to the
 * SDK, which answers its errors as before.
 */

export interface ToolCallMessage {
  id: string | number;
  name: string;
  arguments: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The call, when `message` is one plain `tools/call` request (no task, as the SDK would take it) sent with the headers the transport requires. */
export function directToolCall(c: Context<AppEnv>, sdk: McpSdk, message: unknown): ToolCallMessage | null {
  if (!isObject(message) || message.jsonrpc !== '2.0' || message.method !== 'tools/call') return null;
  const { id, params } = message;
  if ((typeof id !== 'string' && !Number.isInteger(id)) || !isObject(params) || typeof params.name !== 'string') return null;
  if (params.arguments !== undefined && !isObject(params.arguments)) return null;
  if (params.task !== undefined) return null;
  const accept = c.req.header('accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return null;
  if ((c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase() !== 'application/json') return null;
  const version = c.req.header('mcp-protocol-version');
  if (version !== undefined && !sdk.SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  return { id: id as string | number, name: params.name, arguments: (params.arguments as Record<string, unknown> | undefined) ?? {} };
}

/**
 * The JSON-RPC answer to the call, as the SDK's JSON response mode gives it
 * (the result, or an error for an unknown tool). A call its client cancelled
 * (`notifications/cancelled`) gets no JSON-RPC answer, as MCP asks: its
 * request is closed with 202, as the transport closes one carrying only
 * notifications, so neither end holds it open.
 */
export async function answerToolCall(c: Context<AppEnv>, sdk: McpSdk, session: Session, call: McpCall, message: ToolCallMessage): Promise<Response> {
  const controller = new AbortController();
  let left = false;
  const stopWatching = onClientGone(c, () => {
    left = true;
    controller.abort(CLIENT_LEFT);
  });
  session.calls.set(message.id, controller);
  let answer: Record<string, unknown>;
  try {
    answer = { result: await callTool(sdk, call, session.tools, message.name, message.arguments, controller.signal) };
  } catch (err) {
    const error = err as Error & { code?: unknown; data?: unknown };
    const code = Number.isSafeInteger(error.code) ? error.code : sdk.ErrorCode.InternalError;
    answer = { error: { code, message: error.message || 'Internal error', ...(error.data !== undefined ? { data: error.data } : {}) } };
  } finally {
    stopWatching();
    if (session.calls.get(message.id) === controller) session.calls.delete(message.id);
  }
  if (controller.signal.aborted && !left) return c.body(null, 202);
  return c.json({ jsonrpc: '2.0', id: message.id, ...answer }, 200, { 'mcp-session-id': session.transport.sessionId! });
}

/** A `notifications/cancelled` for a call on the direct path stops it; the SDK still gets the notification (and answers it). */
export function cancelDirectCall(session: Session, message: unknown): void {
  if (!isObject(message) || message.method !== 'notifications/cancelled' || !isObject(message.params)) return;
  const requestId = message.params.requestId;
  if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
  session.calls.get(requestId)?.abort(typeof message.params.reason === 'string' ? message.params.reason : 'cancelled by the client');
}
