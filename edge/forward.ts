import type { Context } from 'hono';
import { ASSERTION_HEADER, encodeAssertion } from '../shared/edge/protocol.ts';
import { formatTraceparent } from '../shared/tracing/trace-context.ts';
import { errorAnswer } from './answers.ts';
import type { EdgeEnv } from './gate.ts';

/** Headers about one connection (RFC 9110, 7.6.1), never passed on by a proxy. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

function stripHopByHop(headers: Headers): void {
  const named = (headers.get('connection') ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  for (const name of [...HOP_BY_HOP, ...named]) headers.delete(name);
}

/**
 * Sends the request on to the origin with the edge's signed caller
 * assertion instead of the client's `X-API-Key` (and never a client's own
 * assertion), and answers with the origin's response. Bodies stream both
 * ways: nothing is buffered here. `withoutConditionals` drops
 * `If-None-Match`, so the response cache gets a body to keep.
 */
export async function forward(c: Context<EdgeEnv>, { withoutConditionals = false } = {}): Promise<Response> {
  const gate = c.get('gate');
  const url = new URL(c.req.url);
  const target = url.pathname + url.search;
  const method = c.req.method;
  const headers = new Headers(c.req.raw.headers);
  stripHopByHop(headers);
  for (const name of ['host', 'x-api-key', ASSERTION_HEADER]) headers.delete(name);
  if (withoutConditionals) headers.delete('if-none-match');
  // The origin's request span goes under the edge's (edge/trace.ts).
  const trace = c.get('trace');
  if (trace) headers.set('traceparent', formatTraceparent(trace));
  const assertion = await encodeAssertion(c.env.SLUICE_EDGE_SECRET, {
    ts: Date.now(),
    ip: gate.ip,
    method,
    target,
    credential: gate.credential,
    clientLimited: gate.clientLimited,
    keyLimited: gate.keyLimited,
  });
  headers.set(ASSERTION_HEADER, assertion);
  let res: Response;
  const sent = Date.now();
  try {
    res = await fetch(new URL(target, c.env.SLUICE_ORIGIN_URL), {
      method,
      headers,
      body: method === 'GET' || method === 'HEAD' ? null : c.req.raw.body,
      redirect: 'manual',
    });
  } catch {
    return errorAnswer(c.req.path, gate.requestId, 'origin_unreachable', 'The origin could not be reached');
  }
  c.set('originMs', Date.now() - sent);
  const answer = new Response(res.body, res);
  stripHopByHop(answer.headers);
  return answer;
}
