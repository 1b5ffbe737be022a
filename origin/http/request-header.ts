import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/** The Node request under @hono/node-server; none elsewhere. */
export const incomingOf = (c: Context): IncomingMessage | undefined => (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;

/**
 * A request header's value as the Fetch API's `Headers.get` gives it (every
 * occurrence, joined with ", "), read straight off the Node request's raw
 * headers: `c.req.header()` first builds a whole `Headers` object of the
 * request, a cost on every request for the two or three the hot path reads.
 * Elsewhere (a Worker, an in-process test client) it is `c.req.header()`.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = incomingOf(c);
  if (!incoming) return c.req.header(name);
  const wanted = name.toLowerCase();
  const raw = incoming.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const field = raw[i]!;
    if (field.length !== wanted.length || field.toLowerCase() !== wanted) continue;
    value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}
