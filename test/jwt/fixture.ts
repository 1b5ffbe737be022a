import { createHmac, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { writeFile } from 'node:fs/promises';

/**
 * Sign-in tokens made the plain way, with node:crypto (not the library the
 * origin verifies with), so a bug there cannot hide behind the same bug here.
 */

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

export const SECRET = `test-secret-${randomBytes(24).toString('hex')}`;
export const ISSUER = 'https://id.example.test';
export const AUDIENCE = 'sluice-tests';

export type Signer = { alg: 'HS256'; secret: string | Buffer } | { alg: 'RS256' | 'ES256'; key: KeyObject; kid?: string };

/** `header.payload.signature` signed by `signer`; `header` overrides what the signer would write. */
export function token(payload: Record<string, unknown>, signer: Signer, header: Record<string, unknown> = {}): string {
  const head = { alg: signer.alg, typ: 'JWT', ...('kid' in signer && signer.kid ? { kid: signer.kid } : {}), ...header };
  const input = `${b64url(JSON.stringify(head))}.${b64url(JSON.stringify(payload))}`;
  let signature: Buffer;
  if (signer.alg === 'HS256') signature = createHmac('sha256', signer.secret).update(input).digest();
  else if (signer.alg === 'RS256') signature = sign('sha256', Buffer.from(input), signer.key);
  else signature = sign('sha256', Buffer.from(input), { key: signer.key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** An unsigned token (`alg: none`, empty signature). */
export const unsigned = (payload: Record<string, unknown>) => `${b64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${b64url(JSON.stringify(payload))}.`;

const now = () => Math.floor(Date.now() / 1000);

/** Claims valid for ten minutes from this server's issuer for this audience. */
export const claims = (extra: Record<string, unknown> = {}) => ({ iss: ISSUER, aud: AUDIENCE, iat: now(), exp: now() + 600, ...extra });
export const expiredClaims = (extra: Record<string, unknown> = {}) => claims({ iat: now() - 3600, exp: now() - 600, ...extra });

export interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
  kid: string;
}

export const rsaKey = (kid: string): KeyPair => ({ ...generateKeyPairSync('rsa', { modulusLength: 2048 }), kid });
export const ecKey = (kid: string): KeyPair => ({ ...generateKeyPairSync('ec', { namedCurve: 'P-256' }), kid });

/** Writes a JWKS holding the public halves of `pairs` (and any extra raw entries). */
export async function writeJwks(path: string, pairs: KeyPair[], extra: unknown[] = []): Promise<void> {
  const keys = pairs.map((pair) => ({ ...pair.publicKey.export({ format: 'jwk' }), kid: pair.kid, use: 'sig' }));
  await writeFile(path, JSON.stringify({ keys: [...keys, ...extra] }));
}

export const rs = (pair: KeyPair): Signer => ({ alg: 'RS256', key: pair.privateKey, kid: pair.kid });
export const es = (pair: KeyPair): Signer => ({ alg: 'ES256', key: pair.privateKey, kid: pair.kid });
export const hs = (secret: string | Buffer = SECRET): Signer => ({ alg: 'HS256', secret });

export const bearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });
