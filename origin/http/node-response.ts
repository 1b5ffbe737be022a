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
