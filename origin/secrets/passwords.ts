import { SluiceError, badRequest } from '../errors.ts';
import { type SecretKeyring, UndecryptableError, isEncrypted } from './keyring.ts';
import { referenceProblem } from './references.ts';

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

/** The variable a wholly-`${VAR}` password names, or null for anything else. */
export const referenceOf = (password: string | null | undefined): string | null => (password ? (ENV_REFERENCE.exec(password)?.[1] ?? null) : null);

/**
 * A password as a database or a store needs it: a `${VAR}` reference read
 * from the environment now (it is never stored expanded), a literal as
 * stored. A variable the rule refuses (secrets/references.ts: `allowed` is
 * SLUICE_SECRET_REFS) is never read: 502 `connection_failed` naming the
 * rule; an unset one is 502 `connection_failed` naming it. `owner`
 * (`connection "x"`, `destination "y"`) is null for unsaved fields.
 */
export function expandPassword(
  owner: string | null,
  password: string | null,
  allowed: readonly string[],
  environment: NodeJS.ProcessEnv = process.env,
): string | null {
  const name = referenceOf(password);
  if (name === null) return password;
  const whose = `The password${owner === null ? '' : ` of ${owner}`}`;
  const problem = referenceProblem(name, allowed);
  if (problem) throw new SluiceError('connection_failed', `${whose} is not expanded: ${problem}`, { detail: `Reference to ${name} refused` });
  const value = environment[name];
  if (value === undefined) {
    throw new SluiceError('connection_failed', `${whose} refers to \${${name}}, which is not set in the server's environment`, {
      detail: `Environment variable ${name} is not set`,
    });
  }
  return value;
}
