import { createHash } from 'node:crypto';

/**
 * Keys of `SLUICE_SECRET_KEY`: comma-separated, each 32 random bytes written
 * as 64 hex characters or as base64 / base64url (43 characters, or 44 with
 * `=`). The first encrypts; all decrypt. A key is known by its id, the first
 * 8 hex characters of the SHA-256 of its bytes, which ciphertexts carry.
 * Messages name a key by its position, never by its text.
 */

export interface SecretKey {
  id: string;
  key: Buffer;
}

const HEX = /^[0-9a-fA-F]{64}$/;
const BASE64 = /^[A-Za-z0-9+/_-]{43}=?$/;

function decodeKey(text: string): Buffer | null {
  if (HEX.test(text)) return Buffer.from(text, 'hex');
  if (!BASE64.test(text)) return null;
  const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === 32 ? bytes : null;
}

export const keyId = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);

/** What is wrong with the variable's value, or null when every key is well-formed. */
export function secretKeyProblem(text: string): string | null {
  const parts = text.split(',').map((part) => part.trim());
  const bad = parts.flatMap((part, i) => (decodeKey(part) ? [] : [i + 1]));
  if (bad.length === 0) return null;
  const which = parts.length === 1 ? 'the key' : `key${bad.length > 1 ? 's' : ''} ${bad.join(', ')} of ${parts.length}`;
  return `${which} must be 32 bytes written as 64 hex characters or as base64 (e.g. \`openssl rand -base64 32\`)`;
}

/** The configured keys in order, duplicates dropped. Throws on a malformed value (see `secretKeyProblem`). */
export function parseSecretKeys(text: string | undefined): SecretKey[] {
  if (text === undefined || text.trim() === '') return [];
  const problem = secretKeyProblem(text);
  if (problem) throw new Error(`SLUICE_SECRET_KEY: ${problem}`);
  const keys: SecretKey[] = [];
  for (const part of text.split(',')) {
    const key = decodeKey(part.trim())!;
    const id = keyId(key);
    if (!keys.some((k) => k.id === id)) keys.push({ id, key });
  }
  return keys;
}
