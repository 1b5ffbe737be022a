import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { createQuery, getQ } from '../q/fixture.ts';
import { bearer, claims, ecKey, es, type KeyPair, rs, rsaKey, token, writeJwks } from './fixture.ts';

/** SLUICE_JWT_JWKS as an https URL: a real TLS server (self-signed, trusted through NODE_EXTRA_CA_CERTS) serving the key set. */

let dir: string;
let server: Server;
let fetches = 0;
let origin: Origin;
let rsa: KeyPair;
let query: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-jwks-'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  rsa = rsaKey('remote-rsa');
  const jwksPath = join(dir, 'jwks.json');
  await writeJwks(jwksPath, [rsa]);
  server = createServer({ cert: await readFile(cert), key: await readFile(key) }, async (req, res) => {
    fetches++;
    res.setHeader('content-type', 'application/json');
    res.end(await readFile(jwksPath));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  origin = await startOrigin({ env: { SLUICE_JWT_JWKS: `https://127.0.0.1:${port}/jwks.json`, NODE_EXTRA_CA_CERTS: cert } });
  query = await createQuery(origin, { sql: 'SELECT CAST(:who AS VARCHAR) AS who', parameters: { who: { from_claim: 'sub' } } }, 'remote');
});

afterAll(async () => {
  await origin?.stop();
  await new Promise((resolve) => server?.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a JWKS URL', () => {
  it('is fetched when first needed, verifies tokens, and is cached', async () => {
    expect(fetches).toBe(0);
    for (const sub of ['ivan', 'judy', 'ken']) {
      const res = await getQ(origin, query, {}, bearer(token(claims({ sub }), rs(rsa))));
      expect(res.status, res.text).toBe(200);
      expect((res.body as Array<{ who: string }>)[0]!.who).toBe(sub);
    }
    expect(fetches).toBe(1);
  });

  it('refuses a token signed by a key it does not serve', async () => {
    const res = await getQ(origin, query, {}, bearer(token(claims({ sub: 'x' }), es(ecKey('stranger')))));
    expect(res.status).toBe(401);
  });
});

describe('a JWKS URL that cannot be reached', () => {
  it('answers 503: the token may be fine, the keys are what is missing', async () => {
    const down = await startOrigin({ env: { SLUICE_JWT_JWKS: 'https://127.0.0.1:1/jwks.json' } });
    try {
      const name = await createQuery(down, { sql: 'SELECT CAST(:who AS VARCHAR) AS who', parameters: { who: { from_claim: 'sub' } } }, 'down');
      const res = await getQ(down, name, {}, bearer(token(claims({ sub: 'x' }), rs(rsa))));
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: expect.stringMatching(/SLUICE_JWT_JWKS could not be fetched/) });
    } finally {
      await down.stop();
    }
  });
});
