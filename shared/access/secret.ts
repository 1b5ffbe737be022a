import { sha256Hex } from '../cache-key.ts';

/**
 * Secrets the server hands out: scoped API keys (`slc_…`) and administrator
 * tokens (`slc_adm_…`). Shared (Web Crypto only) so the origin and the edge
 * hash and compare them the same way. Only the SHA-256 hex of a secret is
 * ever stored.
 */

export const KEY_SECRET_PREFIX = 'slc_';
export const ADMIN_TOKEN_PREFIX = 'slc_adm_';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 32 base62 characters: log2(62) * 32 ≈ 190 bits of randomness. */
const SECRET_CHARS = 32;
/** The largest multiple of 62 below 256: bytes at or above it are redrawn, so every character is equally likely. */
const UNBIASED_LIMIT = 248;

/**
 * A new secret: `prefix` then 32 random base62 characters. Base62 has no `_`,
 * so a key secret can never start with the administrator-token prefix.
 */
export function generateSecret(prefix: string = KEY_SECRET_PREFIX): string {
  let out = prefix;
  while (out.length < prefix.length + SECRET_CHARS) {
    for (const byte of crypto.getRandomValues(new Uint8Array(SECRET_CHARS))) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += BASE62[byte % 62];
      if (out.length === prefix.length + SECRET_CHARS) break;
    }
  }
  return out;
}

/** The stored form of a secret: SHA-256 of its UTF-8 bytes, lower-case hex. */
export function hashSecret(text: string): Promise<string> {
  return sha256Hex(new TextEncoder().encode(text));
}

/**
 * Compares two hex digests without an early exit, so the time taken does not
 * tell how much of a guess matched. Digests of one algorithm have one length,
 * so a length difference reveals nothing secret.
 */
export function hexEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
