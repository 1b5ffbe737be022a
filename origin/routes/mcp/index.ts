import { type Context, Hono } from 'hono';
import { DEPTH_PROBLEM, nestsDeeperThan } from '../../../shared/json-depth.ts';
import { bodyBytes } from '../../http/body.ts';
import type { AppEnv } from '../../http/context.ts';
import { mcpCallOf } from './call.ts';
import { answerToolCall, cancelDirectCall, directToolCall } from './direct-call.ts';
import { authInfoOf } from './server.ts';
import { mcpSessions, ownerOf } from './sessions.ts';

/** A JSON-RPC error answer before any session handles the request. */
const rpcError = (c: Context<AppEnv>, status: 400 | 404, code: number, message: string) =>
  c.json({ jsonrpc: '2.0', error: { code, message }, id: null }, status);

/**
 * `/mcp`: the MCP endpoint (Streamable HTTP, docs/guides/mcp.md). A POST
 * without `Mcp-Session-Id` starts a session (it must carry `initialize`);
 * then POST (messages), GET (the stream of server notifications) and
 * DELETE (end) carry the session's id, on any origin sharing the store
 * (sessions.ts). The caller was authenticated and rate-limited like any
 * other request before this route runs.
 */
export const mcpRoute = new Hono<AppEnv>();

async function handle(c: Context<AppEnv>): Promise<Response> {
  const sessions = await mcpSessions(c.get('deps'));
  const owner = ownerOf(c.get('caller'));
  const id = c.req.header('mcp-session-id');
  const call = mcpCallOf(c);
  const options = { authInfo: authInfoOf(call), parsedBody: c.req.method === 'POST' ? await messageOf(c) : undefined };
  if (options.parsedBody === PARSE_ERROR) return rpcError(c, 400, -32700, 'Parse error: the body is not JSON');
  if (options.parsedBody === TOO_DEEP) return rpcError(c, 400, -32600, `Invalid Request: the body ${DEPTH_PROBLEM}`);
  if (id !== undefined) {
    const session = await sessions.find(id, owner);
    if (!session) return rpcError(c, 404, -32001, 'Session not found: start a new one with initialize');
    const direct = c.req.method === 'POST' ? directToolCall(c, sessions.sdk, options.parsedBody) : null;
    if (direct) return answerToolCall(c, sessions.sdk, session, call, direct);
    cancelDirectCall(session, options.parsedBody);
    return session.transport.handleRequest(c.req.raw, options);
  }
  if (c.req.method !== 'POST') return rpcError(c, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
  const started = await sessions.start(owner, options.parsedBody);
  try {
    return await started.transport.handleRequest(c.req.raw, options);
  } finally {
    await started.settle();
  }
}

const PARSE_ERROR = Symbol('parse error');
const TOO_DEEP = Symbol('too deep');

/**
 * A POST's JSON-RPC message(s), read from the Node request as every body
 * is (http/body.ts: at most 10 MiB, 413 past it) and handed to the
 * transport parsed, so no fetch Request is built around the Node one.
 */
async function messageOf(c: Context<AppEnv>): Promise<unknown> {
  const text = (await bodyBytes(c)).toString('utf8');
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return PARSE_ERROR;
  }
  // Tool arguments are walked (NULs, parameters, canonical JSON): their depth is bounded as every body's is.
  return nestsDeeperThan(message) ? TOO_DEEP : message;
}

mcpRoute.post('/mcp', handle);
mcpRoute.get('/mcp', handle);
mcpRoute.delete('/mcp', handle);
