import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../origin/env.ts';
import { SluiceError } from '../../origin/errors.ts';
import { SecretKeyring, UndecryptableError, keyIdOf } from '../../origin/secrets/keyring.ts';
import { keyId, parseSecretKeys, secretKeyProblem } from '../../origin/secrets/keys.ts';
import { openPassword, samePassword, sealPassword, storedKind } from '../../origin/secrets/passwords.ts';

/** SLUICE_SECRET_KEY parsing, the ciphertext format and the password helpers the connection verbs use. */

const hexKey = () => randomBytes(32).toString('hex');
const base64Key = () => randomBytes(32).toString('base64');
const ring = (...texts: string[]) => new SecretKeyring(parseSecretKeys(texts.join(',')));

describe('SLUICE_SECRET_KEY', () => {
  it('takes 32-byte keys as hex, base64 or base64url, comma-separated; ids are short hashes; duplicates drop', () => {
    const bytes = randomBytes(32);
    const hex = bytes.toString('hex');
    const keys = parseSecretKeys(` ${hex} , ${bytes.toString('base64')},${bytes.toString('base64url')},${base64Key()}`);
    expect(keys).toHaveLength(2);
    expect(keys[0].id).toBe(keyId(bytes));
    expect(keys[0].id).toMatch(/^[0-9a-f]{8}$/);
    expect(keys[0].key.equals(bytes)).toBe(true);
    expect(parseSecretKeys(undefined)).toEqual([]);
  });

  it('names the bad key by position, never by its text', () => {
    const good = hexKey();
    expect(secretKeyProblem(good)).toBeNull();
    expect(secretKeyProblem('tooshort')).toMatch(/^the key must be 32 bytes/);
    expect(secretKeyProblem(`${good},${'ab'.repeat(31)},also-bad`)).toMatch(/^keys 2, 3 of 3 must be 32 bytes/);
    expect(secretKeyProblem(randomBytes(31).toString('base64'))).not.toBeNull();
  });

  it('a malformed value stops startup naming the variable, not echoing it', () => {
    const good = hexKey();
    const error = (() => {
      try {
        parseEnv({ SLUICE_SECRET_KEY: `${good},not-a-key-zz9` });
      } catch (err) {
        return err as Error;
      }
    })();
    expect(error?.message).toMatch(/SLUICE_SECRET_KEY: key 2 of 2 must be 32 bytes/);
    expect(error?.message).not.toContain(good);
    expect(error?.message).not.toContain('not-a-key-zz9');
    expect(parseEnv({ SLUICE_SECRET_KEY: good }).SLUICE_SECRET_KEY).toBe(good);
  });
});

describe('AES-256-GCM values', () => {
  it('round-trips under the first key, names that key, and never repeats a ciphertext', () => {
    const first = hexKey();
    const keyring = ring(first, hexKey());
    for (const text of ['hunter2', '', 'é 中 🎬 "q" \\ \n', 'x'.repeat(5000)]) {
      const sealed = keyring.encrypt(text);
      expect(sealed).toMatch(/^enc:v1:[0-9a-f]{8}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
      expect(keyIdOf(sealed)).toBe(keyring.keys[0].id);
      expect(keyring.decrypt(sealed)).toBe(text);
      if (text) expect(sealed).not.toContain(text);
    }
    expect(keyring.encrypt('same')).not.toBe(keyring.encrypt('same'));
  });

  it('every configured key decrypts; a missing, wrong or altered one is a clear problem', () => {
    const a = hexKey();
    const b = base64Key();
    const underA = ring(a).encrypt('secret-a');
    expect(ring(b, a).decrypt(underA)).toBe('secret-a');

    const problem = (keyring: SecretKeyring, value: string) => {
      try {
        keyring.decrypt(value);
      } catch (err) {
        expect(err).toBeInstanceOf(UndecryptableError);
        return (err as Error).message;
      }
      throw new Error('decrypted');
    };
    const idA = keyIdOf(underA)!;
    expect(problem(ring(b), underA)).toMatch(new RegExp(`encrypted with key ${idA}, which SLUICE_SECRET_KEY does not hold`));
    expect(problem(new SecretKeyring([]), underA)).toMatch(/SLUICE_SECRET_KEY is not set/);
    const tampered = underA.slice(0, -2) + (underA.endsWith('AA') ? 'BA' : 'AA');
    expect(problem(ring(a), tampered)).toMatch(/altered/);
    expect(problem(ring(a), 'enc:v1:zz')).toMatch(/not in a format/);
    // The header is authenticated: relabelling a value with another configured key's id fails.
    const idB = ring(b).keys[0].id;
    expect(problem(ring(a, b), underA.replace(idA, idB))).toMatch(/altered/);
    for (const message of [problem(ring(b), underA), problem(ring(a), tampered)]) expect(message).not.toContain('secret-a');
  });
});

describe('stored passwords', () => {
  const keyring = ring(hexKey());
  const none = new SecretKeyring([]);

  it('seals literals when a key is configured; references and null stay as they are', () => {
    const sealed = sealPassword(keyring, 'pw')!;
    expect(storedKind(sealed)).toBe('encrypted');
    expect(sealPassword(none, 'pw')).toBe('pw');
    expect(sealPassword(keyring, '${DB_PASSWORD}')).toBe('${DB_PASSWORD}');
    expect(sealPassword(keyring, null)).toBeNull();
    expect(storedKind('${X}')).toBe('reference');
    expect(storedKind('pw')).toBe('plaintext');
    expect(storedKind(null)).toBe('none');
  });

  it('refuses a literal that looks like ciphertext', () => {
    const refused = (() => {
      try {
        sealPassword(keyring, 'enc:v1:looks-sealed');
      } catch (err) {
        return err as SluiceError;
      }
    })();
    expect(refused?.code).toBe('invalid_request');
  });

  it('opens ciphertext for the driver, 500 secret_undecryptable naming whose and why', () => {
    const sealed = sealPassword(keyring, 'pw');
    expect(openPassword(keyring, sealed, 'connection "c"')).toBe('pw');
    expect(openPassword(none, 'pw', 'connection "c"')).toBe('pw');
    const error = (() => {
      try {
        openPassword(none, sealed, 'connection "c"');
      } catch (err) {
        return err as SluiceError;
      }
    })();
    expect(error).toBeInstanceOf(SluiceError);
    expect(error?.code).toBe('secret_undecryptable');
    expect(error?.status).toBe(500);
    expect(error?.message).toMatch(/^The stored password of connection "c" cannot be decrypted: it was encrypted with key [0-9a-f]{8}/);
  });

  it('compares a sent password with the stored one through decryption', () => {
    const sealed = sealPassword(keyring, 'pw');
    expect(samePassword(keyring, sealed, 'pw')).toBe(true);
    expect(samePassword(keyring, sealed, 'other')).toBe(false);
    expect(samePassword(none, sealed, 'pw')).toBe(false);
    expect(samePassword(keyring, 'pw', 'pw')).toBe(true);
    expect(samePassword(keyring, null, null)).toBe(true);
  });
});
