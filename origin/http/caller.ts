import { hash as digest, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { ipMatches } from '../../shared/access/cidr.ts';
import { isPublicPath } from '../../shared/access/public-paths.ts';
import { UNAUTHORIZED_MESSAGE } from '../../shared/access/answers.ts';
import { accessDirectory } from '../access/directory.ts';
import type { AccessSnapshot } from '../access/directory-snapshot.ts';
import { lastUsed } from '../access/last-used.ts';
import { periodKey } from '../access/periods.ts';
import { SluiceError } from '../errors.ts';
import type { AppEnv } from './context.ts';
import { requestSpanOf } from './request-scope.ts';
import { inSpan } from '../observability/tracing/span.ts';
import type { Caller } from '../access/caller.ts';
import { requestHeader } from './request-header.ts';

const OPEN: Caller = { name: '-', admin: true, via: 'open' };
const BREAK_GLASS: Caller = { name: 'admin', admin: true, via: 'break-glass' };
const ANONYMOUS: Caller = { name: '-', admin: false, via: 'anonymous' };

/** One-shot hashing: a fraction of createHash's cost for a key's few bytes. */
const sha256 = (text: string) => digest('sha256', text, 'buffer');

/** The server key's hash, made once: the key is fixed for the process's life. */
let serverKeyHash: { key: string; hash: Buffer } | null = null;
function serverKeyDigest(key: string): Buffer {
  if (serverKeyHash?.key !== key) serverKeyHash = { key, hash: sha256(key) };
  return serverKeyHash.hash;
}

/** One answer for every failure, so a caller cannot tell a wrong key from an expired, inactive or misplaced one. */
export const unauthorized = () => new SluiceError('unauthorized', UNAUTHORIZED_MESSAGE);

/**
 * Identifies the caller (docs/reference/authentication.md):
 * - no server key, no scoped key and no administrator: the server is open;
 * - `SLUICE_API_KEY` in `X-API-Key`: the break-glass administrator;
 * - a scoped key in `X-API-Key`: active, unexpired, from an allowed address,
 *   by its current secret or its previous one within the grace;
 * - an administrator token (`slc_adm_...`) as `Authorization: Bearer` or in
 *   `X-API-Key`: the administrator active and the token unexpired.
 * Anything else is 401 with one body, except on public endpoints, which
 * answer an anonymous caller. A request the edge forwarded carries, instead
 * of `X-API-Key`, the SHA-256 of the key the client sent there (its verified
 * assertion, origin/http/edge-assertion.ts): it is identified the same way.
 * Secrets are looked up by SHA-256 in the access directory (memory); the
 * server key is compared in constant time.
 */
export const identifyCaller = createMiddleware<AppEnv>(async (c, next) => {
  c.set('caller', await inSpan(requestSpanOf(c), 'sluice.authenticate', undefined, () => callerOf(c)));
  return next();
});

async function callerOf(c: Context<AppEnv>): Promise<Caller> {
  const deps = c.get('deps');
  // Made on the first request of any kind, so its listener is up before the first key is presented.
  const directory = accessDirectory(deps);
  const adminKey = deps.env.SLUICE_API_KEY;
  const apiKey = requestHeader(c, 'x-api-key');
  const edgeCredential = c.get('edge')?.credential ?? undefined;
  const apiKeyHash = apiKey === undefined ? undefined : sha256(apiKey);
  if (
    adminKey &&
    ((apiKeyHash !== undefined && timingSafeEqual(apiKeyHash, serverKeyDigest(adminKey))) ||
      (edgeCredential !== undefined && timingSafeEqual(Buffer.from(edgeCredential, 'hex'), serverKeyDigest(adminKey))))
  ) {
    return BREAK_GLASS;
  }
  // A Bearer token first, then X-API-Key: a client may send both (a metrics token and a key).
  const token = bearer(requestHeader(c, 'authorization'));
  const presented = new Set<string>();
  if (token) presented.add(sha256(token).toString('hex'));
  if (apiKey) presented.add(apiKeyHash!.toString('hex'));
  if (edgeCredential) presented.add(edgeCredential);
  const hashes = [...presented];
  let caller: Caller | undefined;
  for (const [i, hash] of (hashes.length > 0 ? hashes : [undefined]).entries()) {
    const snapshot = await directory.view(hash);
    if (i === 0 && !directory.authenticationOn(snapshot)) {
      caller = OPEN;
      break;
    }
    caller = hash === undefined ? undefined : authenticate(snapshot, hash, c.get('clientIp'), deps);
    if (caller) break;
  }
  if (caller) return caller;
  if (isPublicPath(c.req.path)) return ANONYMOUS;
  throw unauthorized();
}

/** The token of `Authorization: Bearer <token>`; other schemes are not credentials here. */
export function bearer(header: string | undefined): string | undefined {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match ? match[1] : undefined;
}

function authenticate(snapshot: AccessSnapshot, hash: string, clientIp: string, deps: AppEnv['Variables']['deps']): Caller | undefined {
  const now = Date.now();
  const token = snapshot.token(hash);
  if (token) {
    const { administrator } = token;
    if (!administrator.active || (token.expiresAt !== null && token.expiresAt.getTime() < now)) return undefined;
    lastUsed(deps).token(token.id, administrator.id);
    return {
      name: administrator.name,
      admin: false,
      via: 'token',
      administrator: {
        id: administrator.id,
        name: administrator.name,
        role: administrator.role,
        memberships: administrator.memberships,
        tokenId: token.id,
      },
    };
  }
  const match = snapshot.key(hash);
  if (!match) return undefined;
  const { key } = match;
  if (!key.active) return undefined;
  if (key.expiresAt !== null && periodKey('day', now) > key.expiresAt) return undefined;
  if (match.previous && (match.previousExpiresAt === null || match.previousExpiresAt.getTime() <= now)) return undefined;
  if (key.grants.allowed_ips !== null && !ipMatches(clientIp, key.grants.allowed_ips)) return undefined;
  lastUsed(deps).key(key.id, match.previous);
  return { name: key.name, admin: false, via: 'key', key: { id: key.id, name: key.name, workspace: key.workspace, grants: key.grants } };
}
