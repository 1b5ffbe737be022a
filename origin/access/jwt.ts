import { readFile, stat } from 'node:fs/promises';
import type { JWK, JWTVerifyGetKey } from 'jose';
import type { Logger } from '../observability/logger.ts';
import type { Env } from '../env.ts';
import { SluiceError } from '../errors.ts';

/**
 * Sign-in tokens: JWTs an application obtained for its end user, whose
 * claims feed `from_claim` parameters (docs/reference/sign-in-tokens.md).
 * HS256 is verified with `SLUICE_JWT_SECRET`, RS256 and ES256 with the keys
 * of `SLUICE_JWT_JWKS`. A token must carry `exp`; `nbf` is checked when
 * present; `alg: none` and every other algorithm are refused, and each
 * algorithm is tried only against its own kind of key (an HS256 token is
 * never checked against a public key).
 */

export type Claims = Record<string, unknown>;

export interface SignInVerifier {
  /** The claims of a valid token; otherwise a 401 (or 503 when the remote key set cannot be fetched). */
  claims(token: string | undefined): Promise<Claims>;
}

/** Header that carries a sign-in token when `Authorization` is taken (e.g. by an administrator token). */
export const SIGN_IN_TOKEN_HEADER = 'X-Sign-In-Token';

/**
 * The sign-in token a request presents: `X-Sign-In-Token`, else
 * `Authorization: Bearer <token>` unless that holds one of Sluice's own
 * secrets (scoped keys `slc_…`, administrator tokens `slc_adm_…`).
 */
export function presentedSignInToken(header: (name: string) => string | undefined): string | undefined {
  const own = header(SIGN_IN_TOKEN_HEADER)?.trim();
  if (own) return own;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header('authorization') ?? '')?.[1];
  return bearer && !bearer.startsWith('slc_') ? bearer : undefined;
}

const ASYMMETRIC = ['RS256', 'ES256'];

type Jose = typeof import('jose');
let jose: Promise<Jose> | undefined;
/** jose is loaded by a server that verifies sign-in tokens (with its key set, or its first token), not by every origin at startup. */
const loadJose = (): Promise<Jose> => (jose ??= import('jose'));

const invalid = (reason: string) => new SluiceError('unauthorized', `Invalid sign-in token: ${reason}`);

type JwtEnv = Pick<Env, 'SLUICE_JWT_SECRET' | 'SLUICE_JWT_JWKS' | 'SLUICE_JWT_ISSUER' | 'SLUICE_JWT_AUDIENCE'>;

/**
 * Builds the verifier from the environment. A JWKS file is read and checked
 * now (an error names the variable and stops startup); a URL is fetched on
 * first use and cached.
 */
export async function createSignInVerifier(env: JwtEnv, logger: Pick<Logger, 'warn'>): Promise<SignInVerifier> {
  const secret = env.SLUICE_JWT_SECRET === undefined ? undefined : new TextEncoder().encode(env.SLUICE_JWT_SECRET);
  const source = env.SLUICE_JWT_JWKS;
  const keys = source === undefined ? undefined : /^https:\/\//i.test(source) ? await remoteKeys(source) : await fileKeys(source, logger);
  const checks = { requiredClaims: ['exp'], issuer: env.SLUICE_JWT_ISSUER, audience: env.SLUICE_JWT_AUDIENCE };

  return {
    async claims(token) {
      if (secret === undefined && keys === undefined) {
        throw new SluiceError('unauthorized', 'This query takes a value from a sign-in token, and this server verifies none (SLUICE_JWT_SECRET or SLUICE_JWT_JWKS is not set)');
      }
      if (!token) {
        throw new SluiceError('unauthorized', `This query takes a value from a sign-in token: send one as Authorization: Bearer <token> or ${SIGN_IN_TOKEN_HEADER}`);
      }
      const { decodeProtectedHeader, errors, jwtVerify } = await loadJose();
      let alg: string | undefined;
      try {
        alg = decodeProtectedHeader(token).alg;
      } catch {
        throw invalid('malformed');
      }
      try {
        if (alg === 'HS256' && secret) return (await jwtVerify(token, secret, { ...checks, algorithms: ['HS256'] })).payload;
        if (alg !== undefined && ASYMMETRIC.includes(alg) && keys) return (await jwtVerify(token, keys, { ...checks, algorithms: ASYMMETRIC })).payload;
      } catch (err) {
        throw refusal(err, errors);
      }
      throw invalid(`algorithm ${alg ?? 'none'} is not accepted`);
    },
  };
}

/** The 401 (or 503) a failed verification answers; the reason helps a client know whether to refresh its token. */
function refusal(err: unknown, errors: Jose['errors']): SluiceError {
  if (err instanceof SluiceError) return err;
  if (err instanceof errors.JWTExpired) return invalid('expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return invalid('not valid yet (nbf)');
    if (err.reason === 'missing') return invalid(`no ${err.claim} claim`);
    return invalid(`${err.claim} not accepted`);
  }
  if (err instanceof errors.JWSSignatureVerificationFailed || err instanceof errors.JWKSNoMatchingKey) return invalid('signature does not verify');
  if (err instanceof errors.JOSEError) return invalid('malformed');
  throw err;
}

/** A remote key set, re-fetched when a token names a key it does not hold (at most every 30 s). */
async function remoteKeys(url: string): Promise<JWTVerifyGetKey> {
  const { createRemoteJWKSet, errors } = await loadJose();
  const jwks = createRemoteJWKSet(new URL(url), { timeoutDuration: 5_000, cooldownDuration: 30_000, cacheMaxAge: 600_000 });
  return async (header, token) => {
    try {
      return await jwks(header, token);
    } catch (err) {
      if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) throw err;
      throw new SluiceError('sign_in_keys_unavailable', 'Sign-in token cannot be verified now: the key set at SLUICE_JWT_JWKS could not be fetched');
    }
  };
}

/**
 * A key set read from a file: checked at startup, read again when a token
 * names a key it does not hold and the file has changed since (key rotation
 * without a restart). A file that turns bad keeps the keys last read.
 */
async function fileKeys(path: string, logger: Pick<Logger, 'warn'>): Promise<JWTVerifyGetKey> {
  const { errors } = await loadJose();
  let loaded = await readKeySet(path);
  return async (header, token) => {
    try {
      return await loaded.get(header, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
      const modified = await stat(path).then((s) => s.mtimeMs, () => loaded.modified);
      if (modified === loaded.modified) throw err;
      try {
        loaded = await readKeySet(path);
      } catch (reload) {
        logger.warn({ err: { message: (reload as Error).message } }, 'sign-in tokens: the changed JWKS file was not taken; keeping the keys read before');
        throw err;
      }
      return loaded.get(header, token);
    }
  };
}

async function readKeySet(path: string): Promise<{ get: JWTVerifyGetKey; modified: number }> {
  const { createLocalJWKSet, importJWK } = await loadJose();
  const fail = (problem: string) => new Error(`SLUICE_JWT_JWKS: ${path} ${problem}`);
  let text: string;
  let modified: number;
  try {
    [text, modified] = await Promise.all([readFile(path, 'utf8'), stat(path).then((s) => s.mtimeMs)]);
  } catch (err) {
    throw fail(`cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw fail('is not JSON');
  }
  const listed = (parsed as { keys?: unknown })?.keys;
  if (!Array.isArray(listed)) throw fail('is not a JWKS (an object with a "keys" list)');
  const keys: JWK[] = [];
  for (const entry of listed) {
    const key = verificationKey(entry);
    if (!key) continue;
    const unusable = (problem: string) => fail(`has a key that cannot be used${key.kid ? ` (kid ${key.kid})` : ''}: ${problem}`);
    // Verification would refuse a short RSA key on every token; say so now.
    if (key.kty === 'RSA' && Buffer.from(key.n!, 'base64url').length < 256) throw unusable('RSA keys need at least 2048 bits');
    try {
      await importJWK(key, key.alg);
    } catch (err) {
      throw unusable((err as Error).message);
    }
    keys.push(key);
  }
  if (keys.length === 0) throw fail('holds no RS256 (RSA) or ES256 (EC P-256) signing key');
  return { get: createLocalJWKSet({ keys }), modified };
}

/**
 * The public part of an RSA or EC P-256 signing key, pinned to its one
 * algorithm; null for any other key (encryption keys, other curves), which
 * a JWKS may also hold. Private members are never kept.
 */
function verificationKey(entry: unknown): JWK | null {
  if (!entry || typeof entry !== 'object') return null;
  const jwk = entry as Record<string, unknown>;
  if (jwk.use !== undefined && jwk.use !== 'sig') return null;
  const kid = typeof jwk.kid === 'string' ? { kid: jwk.kid } : {};
  if (jwk.kty === 'RSA' && (jwk.alg === undefined || jwk.alg === 'RS256') && typeof jwk.n === 'string' && typeof jwk.e === 'string') {
    return { kty: 'RSA', n: jwk.n, e: jwk.e, alg: 'RS256', ...kid };
  }
  if (jwk.kty === 'EC' && jwk.crv === 'P-256' && (jwk.alg === undefined || jwk.alg === 'ES256') && typeof jwk.x === 'string' && typeof jwk.y === 'string') {
    return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, alg: 'ES256', ...kid };
  }
  return null;
}
