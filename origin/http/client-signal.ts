import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';

const REASON = 'Client connection prematurely closed.';
const signals = new WeakMap<ServerResponse, AbortSignal>();

/**
 * Aborted when the client goes away before its response has been handed over
 * whole (the database statement is then cancelled). On @hono/node-server it
 * comes from the Node response's own `close` event: `c.req.raw.signal` would
 * make the adapter build a whole Request object, which a GET never otherwise
 * needs. One signal per response, however often it is asked for.
 */
export function clientSignal(c: Context): AbortSignal {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (!outgoing) return c.req.raw.signal;
  let signal = signals.get(outgoing);
  if (!signal) {
    const controller = new AbortController();
    if (outgoing.destroyed && !outgoing.writableFinished) controller.abort(REASON);
    else outgoing.once('close', () => outgoing.writableFinished || controller.abort(REASON));
    signal = controller.signal;
    signals.set(outgoing, signal);
  }
  return signal;
}

/**
 * True once the client has gone away before its response was handed over
 * whole. Asks the Node response directly, so no signal is made for it; off
 * Node there is no such response, and it answers false.
 */
export function clientGone(c: Context): boolean {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing) return outgoing.destroyed && !outgoing.writableFinished;
  return false;
}
