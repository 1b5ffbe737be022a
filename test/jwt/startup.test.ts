import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrigin } from '../harness/origin.ts';
import { createQuery, getQ } from '../q/fixture.ts';
import { bearer, claims, hs, SECRET, token } from './fixture.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-jwt-startup-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Starting must fail with a message naming the variable (and never echoing a secret). */
async function refusedAtStartup(env: Record<string, string>, variable: string, problem: RegExp) {
  const started = startOrigin({ env, template: false });
  const err: Error = await started.then(
    async (origin) => {
      await origin.stop();
      throw new Error('the origin started');
    },
    (e: Error) => e,
  );
  expect(err.message).toMatch(new RegExp(`${variable}[^\\n]*${problem.source}`));
  return err;
}

describe('sign-in token settings are checked at startup', () => {
  it('a secret shorter than 256 bits, never echoed', async () => {
    const err = await refusedAtStartup({ SLUICE_JWT_SECRET: 'short-secret-value' }, 'SLUICE_JWT_SECRET', /at least 32/);
    expect(err.message).not.toContain('short-secret-value');
  });

  it('a JWKS over plain http', () => refusedAtStartup({ SLUICE_JWT_JWKS: 'http://id.example.test/jwks.json' }, 'SLUICE_JWT_JWKS', /https/));

  it('a JWKS file that does not exist', () => refusedAtStartup({ SLUICE_JWT_JWKS: join(dir, 'missing.json') }, 'SLUICE_JWT_JWKS', /cannot be read/));

  it('a JWKS file that is not JSON', async () => {
    const path = join(dir, 'broken.json');
    await writeFile(path, '{"keys": [');
    await refusedAtStartup({ SLUICE_JWT_JWKS: path }, 'SLUICE_JWT_JWKS', /not JSON/);
  });

  it('a JWKS file with no RS256 or ES256 signing key', async () => {
    const path = join(dir, 'unusable.json');
    // An Ed25519 key, a P-384 key and an encryption key: none of them verifies RS256 or ES256.
    await writeFile(path, JSON.stringify({
      keys: [
        { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' },
        { kty: 'EC', crv: 'P-384', x: 'AAAA', y: 'AAAA' },
        { kty: 'RSA', n: 'AQAB', e: 'AQAB', use: 'enc' },
      ],
    }));
    await refusedAtStartup({ SLUICE_JWT_JWKS: path }, 'SLUICE_JWT_JWKS', /no RS256/);
  });

  it('a JWKS file with a broken RSA key', async () => {
    const path = join(dir, 'bad-rsa.json');
    await writeFile(path, JSON.stringify({ keys: [{ kty: 'RSA', kid: 'tiny', n: 'AQAB', e: 'AQAB' }] }));
    await refusedAtStartup({ SLUICE_JWT_JWKS: path }, 'SLUICE_JWT_JWKS', /kid tiny[^\n]*2048/);
  });
});

describe('a server that verifies no sign-in tokens', () => {
  it('answers 401 for a from_claim query, naming the missing setting, and runs other queries', async () => {
    const origin = await startOrigin();
    try {
      const name = await createQuery(origin, { sql: 'SELECT CAST(:who AS VARCHAR) AS who', parameters: { who: { from_claim: 'sub' } } }, 'noverify');
      const res = await getQ(origin, name, {}, bearer(token(claims({ sub: 'x' }), hs(SECRET))));
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/SLUICE_JWT_SECRET or SLUICE_JWT_JWKS/);
      const plain = await createQuery(origin, { sql: 'SELECT 1 AS one' }, 'plain');
      expect((await getQ(origin, plain)).status).toBe(200);
    } finally {
      await origin.stop();
    }
  });
});
