import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';

/** The Node response under @hono/node-server; none elsewhere. */
export const outgoingOf = (c: Context): ServerResponse | undefined => (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;

/**
 * Trailers sent after the last chunk of a chunked response, on Node (a
 * Worker's fetch has none to forward). Called before the body ends.
 */
export function addTrailers(c: Context, trailers: Record<string, string>): void {
  outgoingOf(c)?.addTrailers(trailers);
}

/**
 * Sets a header of the response a middleware's `next()` answered. On Node
 * it goes on the Node response, which its headers join when they are
 * written: `c.res.headers` would turn the answer's plain header record into
 * a `Headers` object, and the adapter would then read it back entry by
 * entry. Headers the answer names itself win. Elsewhere it is `c.res.headers.set`.
 */
export function setResponseHeader(c: Context, name: string, value: string): void {
  const outgoing = outgoingOf(c);
  if (!outgoing) c.res.headers.set(name, value);
  else if (!outgoing.headersSent) outgoing.setHeader(name, value);
}
