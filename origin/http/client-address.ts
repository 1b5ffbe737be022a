import { getConnInfo } from '@hono/node-server/conninfo';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './context.ts';

/**
 * The client's address and scheme (`clientIp`, `clientScheme`): the socket
 * peer and plain http, unless `SLUICE_TRUST_PROXY=N` says N proxies stand in
 * front. Then they come from `X-Forwarded-For`, N hops from the right (each
 * proxy appends the address it was reached from, so the N-th entry from the
 * right was written by the outermost trusted proxy), and from
 * `X-Forwarded-Proto` likewise. Without it both headers are ignored: a client
 * could write anything there. Allow-lists and rate limits read `clientIp`.
 */
export const clientAddress = createMiddleware<AppEnv>(async (c, next) => {
  const trusted = c.get('deps').env.SLUICE_TRUST_PROXY;
  const peer = peerAddress(c);
  let ip = peer;
  let scheme = 'http';
  if (trusted > 0) {
    ip = fromRight(c.req.header('x-forwarded-for'), trusted, bareAddress) ?? peer;
    scheme = fromRight(c.req.header('x-forwarded-proto'), trusted, (v) => v.toLowerCase()) ?? scheme;
  }
  c.set('clientIp', ip);
  c.set('clientScheme', scheme === 'https' ? 'https' : 'http');
  await next();
});

function peerAddress(c: Parameters<typeof getConnInfo>[0]): string {
  try {
    return bareAddress(getConnInfo(c).remote.address ?? '');
  } catch {
    // Not served by the Node adapter (an in-process test client): no socket.
    return '';
  }
}

/**
 * The entry `hops` from the right of a comma-separated header; the leftmost
 * when there are fewer entries than trusted proxies (the farthest address
 * known). Undefined when the header is absent or empty.
 */
export function fromRight(header: string | undefined, hops: number, clean: (entry: string) => string): string | undefined {
  if (!header) return undefined;
  const entries = header
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) return undefined;
  return clean(entries[Math.max(0, entries.length - hops)]!);
}

/** An address as written by a socket or a proxy, without brackets or port: `[::1]:80` -> `::1`, `1.2.3.4:5` -> `1.2.3.4`. */
export function bareAddress(text: string): string {
  const trimmed = text.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(trimmed);
  if (bracketed) return bracketed[1]!;
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(trimmed);
  if (v4WithPort) return v4WithPort[1]!;
  return trimmed;
}
