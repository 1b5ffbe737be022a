import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN_PREFIX, KEY_SECRET_PREFIX, generateSecret, hashSecret, hexEqual } from '../../../shared/access/secret.ts';

describe('generateSecret', () => {
  it('is the prefix and 32 base62 characters (more than 128 bits)', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^slc_[0-9A-Za-z]{32}$/);
    expect(KEY_SECRET_PREFIX).toBe('slc_');
  });

  it('takes the administrator-token prefix, which a key secret can never start with', () => {
    expect(generateSecret(ADMIN_TOKEN_PREFIX)).toMatch(/^slc_adm_[0-9A-Za-z]{32}$/);
    for (let i = 0; i < 200; i++) expect(generateSecret().startsWith(ADMIN_TOKEN_PREFIX)).toBe(false);
  });

  it('never repeats and uses the whole alphabet', () => {
    const secrets = Array.from({ length: 2000 }, () => generateSecret());
    expect(new Set(secrets).size).toBe(secrets.length);
    const seen = new Set(secrets.flatMap((s) => [...s.slice(4)]));
    expect(seen.size).toBe(62);
  });
});

describe('hashSecret', () => {
  it('is the SHA-256 hex of the UTF-8 text', async () => {
    for (const text of ['slc_abc', '', 'héllo ✓']) {
      expect(await hashSecret(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
    }
  });
});

describe('hexEqual', () => {
  it('is true only for identical strings', async () => {
    const a = await hashSecret('one');
    const b = await hashSecret('two');
    expect(hexEqual(a, a)).toBe(true);
    expect(hexEqual(a, `${a}`)).toBe(true);
    expect(hexEqual(a, b)).toBe(false);
    expect(hexEqual(a, a.slice(0, -1))).toBe(false);
    expect(hexEqual(a, `${a.slice(0, -1)}${a.at(-1) === '0' ? '1' : '0'}`)).toBe(false);
    expect(hexEqual('', '')).toBe(true);
  });
});
