import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Env } from '../env.ts';
import { type SecretKey, parseSecretKeys } from './keys.ts';

/**
 * AES-256-GCM with the keys of SLUICE_SECRET_KEY. A ciphertext reads
 * `enc:v1:<key id>:<iv>:<ciphertext and tag>` (iv and body base64url; the
 * `enc:v1:<key id>` header is authenticated as associated data), so the key
 * that opens it is known without trying each one, and a later format can be
 * told apart by its version.
 */

const PREFIX = 'enc:v1:';
const ENCRYPTED = /^enc:v\d+:/;
const FORMAT = /^enc:v1:([0-9a-f]{8}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]{22,})$/;
const TAG_BYTES = 16;

export const isEncrypted = (value: string): boolean => ENCRYPTED.test(value);

/** The key id an encrypted value names, or null when it is not in a format this server reads. */
export function keyIdOf(value: string): string | null {
  return FORMAT.exec(value)?.[1] ?? null;
}

/** Why a value cannot be decrypted: a sentence naming the problem, never the value. */
export class UndecryptableError extends Error {}

export class SecretKeyring {
  constructor(readonly keys: readonly SecretKey[]) {}

  /** The key new values are encrypted with; undefined when no key is configured. */
  get primary(): SecretKey | undefined {
    return this.keys[0];
  }

  encrypt(plaintext: string): string {
    const key = this.primary;
    if (!key) throw new Error('SLUICE_SECRET_KEY is not set: nothing to encrypt with');
    const header = PREFIX + key.id;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key.key, iv);
    cipher.setAAD(Buffer.from(header));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${header}:${iv.toString('base64url')}:${body.toString('base64url')}`;
  }

  decrypt(value: string): string {
    const match = FORMAT.exec(value);
    if (!match) throw new UndecryptableError('it is not in a format this server reads (expected enc:v1:<key id>:<iv>:<data>)');
    const [, id, iv, data] = match;
    if (this.keys.length === 0) throw new UndecryptableError(`it was encrypted with key ${id} and SLUICE_SECRET_KEY is not set`);
    const key = this.keys.find((k) => k.id === id);
    if (!key) throw new UndecryptableError(`it was encrypted with key ${id}, which SLUICE_SECRET_KEY does not hold (it holds ${this.keys.map((k) => k.id).join(', ')})`);
    const body = Buffer.from(data, 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(PREFIX + id));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new UndecryptableError(`key ${id} does not open it: the stored value was altered`);
    }
  }
}

const keyrings = new WeakMap<object, SecretKeyring>();

/** The keyring of a parsed environment (made once per environment object; the env schema has validated the keys). */
export function secretKeyring(env: Pick<Env, 'SLUICE_SECRET_KEY'>): SecretKeyring {
  let keyring = keyrings.get(env);
  if (!keyring) {
    keyring = new SecretKeyring(parseSecretKeys(env.SLUICE_SECRET_KEY));
    keyrings.set(env, keyring);
  }
  return keyring;
}
