import { SluiceError, badRequest } from '../errors.ts';
import { type SecretKeyring, UndecryptableError, isEncrypted } from './keyring.ts';

/** A password that is wholly a `${VAR}` reference, expanded from the environment at connect time. */
export const ENV_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * A stored password (connection or destination) is null, a `${VAR}`
 * reference (expanded at connect time, never encrypted: it is no secret), a
 * literal written before a key was configured, or ciphertext.
 */
export type StoredKind = 'none' | 'reference' | 'plaintext' | 'encrypted';

export function storedKind(value: string | null): StoredKind {
  if (value === null) return 'none';
  if (ENV_REFERENCE.test(value)) return 'reference';
  return isEncrypted(value) ? 'encrypted' : 'plaintext';
}

/**
 * The form a password from a request is stored in: a literal is encrypted
 * when a key is configured. A literal shaped like ciphertext is refused: it
 * would be read back as ciphertext.
 */
export function sealPassword(keyring: SecretKeyring, value: string | null): string | null {
  if (value === null || ENV_REFERENCE.test(value)) return value;
  if (isEncrypted(value)) throw badRequest('A password may not start with "enc:v<n>:", the prefix of stored ciphertext', { errors: { password: 'has the ciphertext prefix' } });
  return keyring.primary ? keyring.encrypt(value) : value;
}

/**
 * The password as the driver needs it (a reference still unexpanded). Ciphertext
 * that no configured key opens is 500 `secret_undecryptable`, naming whose
 * password and why, never the value.
 */
export function openPassword(keyring: SecretKeyring, value: string | null, owner: string): string | null {
  if (value === null || !isEncrypted(value)) return value;
  try {
    return keyring.decrypt(value);
  } catch (err) {
    if (!(err instanceof UndecryptableError)) throw err;
    throw new SluiceError('secret_undecryptable', `The stored password of ${owner} cannot be decrypted: ${err.message}`);
  }
}

/** Whether `candidate` (as a request gives it) is the password `stored` holds. An undecryptable one is never the same. */
export function samePassword(keyring: SecretKeyring, stored: string | null, candidate: string | null): boolean {
  if (stored === candidate) return true;
  if (stored === null || candidate === null || !isEncrypted(stored)) return false;
  try {
    return keyring.decrypt(stored) === candidate;
  } catch {
    return false;
  }
}

/**
 * A password as a database or a store needs it: a `${VAR}` reference read
 * from the environment now (it is never stored expanded), a literal as
 * stored. An unset variable is 502 `connection_failed` naming it; `owner`
 * (`connection "x"`, `destination "y"`) is null for unsaved fields.
 */
export function expandPassword(owner: string | null, password: string | null, environment: NodeJS.ProcessEnv = process.env): string | null {
  if (password === null) return null;
  const reference = ENV_REFERENCE.exec(password);
  if (!reference) return password;
  const value = environment[reference[1]!];
  if (value === undefined) {
    throw new SluiceError('connection_failed', `The password${owner === null ? '' : ` of ${owner}`} refers to \${${reference[1]}}, which is not set in the server's environment`, {
      detail: `Environment variable ${reference[1]} is not set`,
    });
  }
  return value;
}
