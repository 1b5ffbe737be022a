import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { outgoingOf } from './node-response.ts';

export const CLIENT_LEFT = 'Client connection prematurely closed.';
const signals = new WeakMap<ServerResponse, AbortSignal>();

/** The client went away before the response was handed over whole. */
const left = (outgoing: ServerResponse) => outgoing.destroyed && !outgoing.writableFinished;

/**
 * Aborted when the client goes away before its response has been handed over
 * whole (the database statement is then cancelled). On @hono/node-server it
 * comes from the Node response's own `close` event: `c.req.raw.signal` would
 * make the adapter build a whole Request object, which a GET never otherwise
 * needs. One signal per response, however often it is asked for.
 */
export function clientSignal(c: Context): AbortSignal {
  const outgoing = outgoingOf(c);
  if (!outgoing) return c.req.raw.signal;
  let signal = signals.get(outgoing);
  if (!signal) {
    const controller = new AbortController();
    if (left(outgoing)) controller.abort(CLIENT_LEFT);
    else outgoing.once('close', () => outgoing.writableFinished || controller.abort(CLIENT_LEFT));
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
  const outgoing = outgoingOf(c);
  return outgoing ? left(outgoing) : false;
}

/**
 * Calls `gone` once if the client goes away before its response is handed
 * over whole; returns what stops watching. For a caller that already has a
 * signal of its own to abort: one listener on the Node response, no second
 * signal.
 */
export function onClientGone(c: Context, gone: () => void): () => void {
  const outgoing = outgoingOf(c);
  if (!outgoing) {
    const signal = c.req.raw.signal;
    signal.addEventListener('abort', gone, { once: true });
    return () => signal.removeEventListener('abort', gone);
  }
  if (left(outgoing)) {
    gone();
    return () => {};
  }
  const onClose = () => outgoing.writableFinished || gone();
  outgoing.once('close', onClose);
  return () => outgoing.off('close', onClose);
}
