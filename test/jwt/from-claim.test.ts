import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { createQuery, getQ, postQ, requestIdOf, wasRecorded } from '../q/fixture.ts';
import { AUDIENCE, bearer, claims, ecKey, es, expiredClaims, hs, ISSUER, type KeyPair, rs, rsaKey, SECRET, token, unsigned, writeJwks } from './fixture.ts';

/** `from_claim` parameters on an origin that verifies HS256 (secret) and RS256/ES256 (a JWKS file). */

let origin: Origin;
let dir: string;
let jwksPath: string;
let rsa: KeyPair;
let ec: KeyPair;
/** `SELECT CAST(:who AS VARCHAR) AS who`, who from the `sub` claim. */
let whoami: string;
/** Films up to the `max_film` claim (an integer), at least `min_id` (from the request). */
let films: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-jwt-'));
  jwksPath = join(dir, 'jwks.json');
  rsa = rsaKey('rsa-1');
  ec = ecKey('ec-1');
  await writeJwks(jwksPath, [rsa, ec]);
  origin = await startOrigin({
    env: { SLUICE_JWT_SECRET: SECRET, SLUICE_JWT_JWKS: jwksPath, SLUICE_JWT_ISSUER: ISSUER, SLUICE_JWT_AUDIENCE: AUDIENCE },
  });
  whoami = await createQuery(origin, { sql: 'SELECT CAST(:who AS VARCHAR) AS who', parameters: { who: { type: 'string', from_claim: 'sub' } } }, 'whoami');
  films = await createQuery(origin, {
    sql: 'SELECT id FROM films WHERE id >= :min_id AND id <= :max_film ORDER BY id',
    parameters: { min_id: { type: 'integer' }, max_film: { type: 'integer', from_claim: 'max_film' } },
  }, 'films');
});

afterAll(async () => {
  await origin?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const who = (body: unknown) => (body as Array<{ who: string }>)[0]?.who;

describe('a valid sign-in token', () => {
  it('feeds the claim to the parameter: HS256 with the shared secret', async () => {
    const res = await getQ(origin, whoami, {}, bearer(token(claims({ sub: 'alice' }), hs())));
    expect(res.status, res.text).toBe(200);
    expect(who(res.body)).toBe('alice');
  });

  it('RS256 with a key of the JWKS file', async () => {
    const res = await getQ(origin, whoami, {}, bearer(token(claims({ sub: 'bob' }), rs(rsa))));
    expect(res.status, res.text).toBe(200);
    expect(who(res.body)).toBe('bob');
  });

  it('ES256 with a key of the JWKS file', async () => {
    const res = await getQ(origin, whoami, {}, bearer(token(claims({ sub: 'carol' }), es(ec))));
    expect(res.status, res.text).toBe(200);
    expect(who(res.body)).toBe('carol');
  });

  it('is also taken from X-Sign-In-Token, and never from a Sluice secret in Authorization', async () => {
    const jwt = token(claims({ sub: 'dave' }), hs());
    const own = await getQ(origin, whoami, {}, { 'x-sign-in-token': jwt, authorization: 'Bearer slc_adm_notasignintoken' });
    expect(own.status, own.text).toBe(200);
    expect(who(own.body)).toBe('dave');
    const secretOnly = await getQ(origin, whoami, {}, { authorization: 'Bearer slc_adm_notasignintoken' });
    expect(secretOnly.status).toBe(401);
  });

  it('works on POST, the other parameters still coming from the request', async () => {
    const res = await postQ(origin, films, { params: { min_id: 2 } }, '', bearer(token(claims({ max_film: 4 }), rs(rsa))));
    expect(res.status, res.text).toBe(200);
    expect((res.body as Array<{ id: number }>).map((r) => r.id)).toEqual([2, 3, 4]);
  });

  it('converts nothing: a claim of the wrong type is a parameter error (400)', async () => {
    const res = await getQ(origin, films, { min_id: 1 }, bearer(token(claims({ max_film: 'four' }), hs())));
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['max_film']);
  });

  it('without the claim the parameter is missing (400 naming the claim)', async () => {
    const res = await getQ(origin, films, { min_id: 1 }, bearer(token(claims(), hs())));
    expect(res.status).toBe(400);
    expect(res.body.errors.max_film).toMatch(/claim max_film/);
  });
});

describe('a value in the request for a from_claim parameter', () => {
  it('is refused with 400 on GET, even beside a valid token, and nothing runs', async () => {
    const res = await getQ(origin, whoami, { who: 'admin' }, bearer(token(claims({ sub: 'eve' }), hs())));
    expect(res.status).toBe(400);
    expect(res.body.errors.who).toMatch(/sign-in token/);
    expect(JSON.stringify(res.body)).not.toContain('eve');
    expect(await wasRecorded(origin, requestIdOf(res))).toBe(false);
  });

  it('is refused with 400 in a POST body', async () => {
    const res = await postQ(origin, films, { params: { min_id: 1, max_film: 999 } }, '', bearer(token(claims({ max_film: 2 }), hs())));
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['max_film']);
  });

  it('does not stand in for a missing token (401 first)', async () => {
    const res = await getQ(origin, whoami, { who: 'admin' });
    expect(res.status).toBe(401);
  });
});

describe('refused tokens (401)', () => {
  const refused = async (headers: Record<string, string>, reason?: RegExp) => {
    const res = await getQ(origin, whoami, {}, headers);
    expect(res.status, res.text).toBe(401);
    expect(Object.keys(res.body)).toEqual(['error']);
    if (reason) expect(res.body.error).toMatch(reason);
    return res;
  };

  it('none presented', () => refused({}, /sign-in token/));
  it('expired', () => refused(bearer(token(expiredClaims({ sub: 'x' }), hs())), /expired/));
  it('without exp', () => refused(bearer(token({ iss: ISSUER, aud: AUDIENCE, sub: 'x' }, hs())), /exp/));
  it('not valid yet (nbf in the future)', () => refused(bearer(token(claims({ sub: 'x', nbf: Math.floor(Date.now() / 1000) + 600 }), rs(rsa))), /nbf/));
  it('alg none', () => refused(bearer(unsigned(claims({ sub: 'x' }))), /algorithm none/));
  it('alg none spelled otherwise, with a signature', () => refused(bearer(token(claims({ sub: 'x' }), hs(), { alg: 'None' }))));
  it('HS256 signed with another secret', () => refused(bearer(token(claims({ sub: 'x' }), hs('another-secret-of-enough-length-000000'))), /signature/));
  it('RS256 signed by a key outside the JWKS under a listed kid', () => refused(bearer(token(claims({ sub: 'x' }), rs(rsaKey('rsa-1')))), /signature/));
  it('ES256 signed by a key outside the JWKS', () => refused(bearer(token(claims({ sub: 'x' }), es(ecKey('ec-1')))), /signature/));
  it('an EC signature under alg RS256 (algorithm does not match the key)', () =>
    refused(bearer(token(claims({ sub: 'x' }), es(ec), { alg: 'RS256', kid: 'ec-1' }))));
  it('HS256 keyed with the RSA public key (algorithm confusion)', () => {
    const pem = rsa.publicKey.export({ type: 'spki', format: 'pem' });
    return refused(bearer(token(claims({ sub: 'x' }), hs(Buffer.from(pem)))), /signature/);
  });
  it('an algorithm the server does not take (HS512)', () => refused(bearer(token(claims({ sub: 'x' }), hs(), { alg: 'HS512' })), /HS512/));
  it('a payload changed after signing', () => {
    const [head, , signature] = token(claims({ sub: 'x' }), hs()).split('.');
    const forged = Buffer.from(JSON.stringify(claims({ sub: 'admin' }))).toString('base64url');
    return refused(bearer(`${head}.${forged}.${signature}`), /signature/);
  });
  it('another issuer', () => refused(bearer(token(claims({ sub: 'x', iss: 'https://evil.example' }), hs())), /iss/));
  it('another audience', () => refused(bearer(token(claims({ sub: 'x', aud: 'someone-else' }), hs())), /aud/));
  it('not a JWT at all', () => refused(bearer('not.a.jwt'), /malformed/));
});

describe('queries without from_claim parameters', () => {
  it('ignore whatever token comes along, even a broken one', async () => {
    const plain = await createQuery(origin, { sql: 'SELECT 1 AS one' }, 'plain');
    const res = await getQ(origin, plain, {}, bearer('garbage'));
    expect(res.status, res.text).toBe(200);
  });
});

describe('cached from_claim queries', () => {
  it('keep one entry per claim value: one user never gets another\'s answer', async () => {
    const cached = await createQuery(origin, { sql: 'SELECT CAST(:who AS VARCHAR) AS who', parameters: { who: { type: 'string', from_claim: 'sub' } }, cache_ttl: 300 }, 'cached');
    const first = await getQ(origin, cached, {}, bearer(token(claims({ sub: 'frank' }), hs())));
    expect(who(first.body)).toBe('frank');
    const second = await getQ(origin, cached, {}, bearer(token(claims({ sub: 'grace' }), hs())));
    expect(second.status).toBe(200);
    expect(who(second.body)).toBe('grace');
    expect(second.headers.get('x-cache')).toBe('MISS');
    const again = await getQ(origin, cached, {}, bearer(token(claims({ sub: 'frank' }), rs(rsa))));
    expect(who(again.body)).toBe('frank');
    expect(again.headers.get('x-cache')).toBe('HIT');
    // A hit still needs a valid token.
    expect((await getQ(origin, cached, {})).status).toBe(401);
  });
});

describe('key rotation in the JWKS file', () => {
  it('takes a key added to the file without a restart', async () => {
    const next = ecKey('ec-2');
    const before = await getQ(origin, whoami, {}, bearer(token(claims({ sub: 'heidi' }), es(next))));
    expect(before.status).toBe(401);
    await writeJwks(jwksPath, [rsa, ec, next]);
    const after = await getQ(origin, whoami, {}, bearer(token(claims({ sub: 'heidi' }), es(next))));
    expect(after.status, after.text).toBe(200);
    expect(who(after.body)).toBe('heidi');
  });
});
