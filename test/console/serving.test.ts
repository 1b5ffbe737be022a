import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';

const ADMIN_KEY = 'console-serving-admin-key-0001';
let origin: Origin;

beforeAll(async () => {
  origin = await startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } });
});
afterAll(() => origin?.stop());

describe('/console', () => {
  it('serves the page without a key, under a strict Content-Security-Policy, with no inline script or style', async () => {
    const res = await origin.fetch('/console');
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/);
    expect(html).toMatch(/src="\/console\/assets\/app-[A-Z0-9]{8}\.js"/);
    expect(html).toMatch(/href="\/console\/assets\/style-[A-Z0-9]{8}\.css"/);
  });

  it('serves hashed assets as immutable, and the page under any path below /console', async () => {
    const html = await (await origin.fetch('/console/')).text();
    for (const path of html.match(/\/console\/assets\/[^"]+/g)!) {
      const res = await origin.fetch(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-type')).toMatch(path.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }
    expect((await origin.fetch('/console/queries/anything')).status).toBe(200);
  });

  it('answers an unknown asset 404', async () => {
    const res = await origin.call('GET', '/console/assets/app-NOTABUILD.js');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: expect.stringContaining('No route') });
  });
});

describe('/console through the edge', () => {
  let behind: Origin;
  beforeAll(async () => {
    behind = await startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY }, edge: true });
  });
  afterAll(() => behind?.stop());

  it('is served without a key, with the page, its policy and its assets', async () => {
    const res = await behind.fetch('/console');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    const script = /src="(\/console\/assets\/app-[^"]+)"/.exec(html)![1];
    const asset = await behind.fetch(script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
  });
});
