import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { fakeDocument, until } from './fake-dom.ts';
import { save } from './fixture.ts';
import { validateOpenApi } from './openapi-checks.ts';
import { unique } from '../harness/unique.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';

/**
 * A server with no key (open) and writes disabled: `/docs` is an HTML page
 * under a strict Content-Security-Policy that reads `/openapi.json`; anyone
 * is an administrator, so `/catalog` and `/openapi.json` list every published
 * query, and nothing can write.
 */

const tag = unique('os').slice(3);
const READ = `os read ${tag}`;
const WRITE = `os write ${tag}`;

let origin: Origin;

beforeAll(async () => {
  origin = await sharedOrigin();
  await save(origin, { name: READ, sql: 'select 1 as one' });
  await save(origin, { name: WRITE, sql: "insert into genres (id, name) values (990, 'x')" });
});

afterAll(async () => {
  await origin?.stop();
});

describe('GET /docs', () => {
  it('answers an HTML page that reads /openapi.json', async () => {
    const res = await origin.fetch('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain("fetch('/openapi.json'");
    expect(html).toContain('X-API-Key');
    expect(html.split('\n').length).toBeLessThan(250);
    // Self-contained: nothing is loaded from elsewhere.
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\//i);
  });

  it('runs under a strict Content-Security-Policy allowing exactly its own inline script and style', async () => {
    const res = await origin.fetch('/docs');
    const csp = res.headers.get('content-security-policy')!;
    const html = await res.text();
    const directives = Object.fromEntries(csp.split(/;\s*/).map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['connect-src']).toEqual(["'self'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    const digest = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1];
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1];
    expect(directives['script-src']).toEqual([digest(script)]);
    expect(directives['style-src']).toEqual([digest(style)]);
    // The script at least parses (rendering it needs a browser, which these tests do not start).
    expect(() => new Function(script)).not.toThrow();
  });
});

describe('the /docs script', () => {
  it('lists the operations by tag, and its try-it form runs GET /q/<name> with the typed key', async () => {
    const html = await (await origin.fetch('/docs')).text();
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1];
    const { byId, document } = fakeDocument(['keyform', 'key', 'status', 'nav', 'ops']);
    const requests: Array<{ path: string; headers: Record<string, string> }> = [];
    const fetchLocal = (path: string, init: { headers: Record<string, string> }) => {
      requests.push({ path, headers: init.headers });
      return origin.fetch(path, { headers: init.headers });
    };
    new Function('document', 'fetch', script)(document, fetchLocal);
    await until(() => byId.status.textContent.includes('operations'));
    expect(requests[0]).toEqual({ path: '/openapi.json', headers: {} });
    const tags = byId.nav.findAll((e) => e.tag === 'a').map((a) => a.textContent);
    expect(tags).toEqual(expect.arrayContaining(['Server', 'Queries', 'Saved queries', 'Management: queries']));

    byId.key.value = ' some-key ';
    byId.keyform.submit();
    await until(() => requests.length === 2 && byId.status.textContent.includes('operations'));
    expect(requests[1]).toEqual({ path: '/openapi.json', headers: { 'X-API-Key': 'some-key' } });

    const operation = byId.ops.findAll((e) => e.tag === 'details').find((d) => d.textContent.includes(`/q/${READ}`))!;
    const form = operation.findAll((e) => e.tag === 'form')[0];
    form.findAll((e) => e.tag === 'input').find((i) => i.attributes.name === 'format')!.value = 'csv';
    form.submit();
    const out = form.findAll((e) => e.tag === 'pre')[0];
    await until(() => /^\d{3} /.test(out.textContent));
    expect(requests[2]).toEqual({ path: `/q/${encodeURIComponent(READ)}?format=csv`, headers: { 'X-API-Key': 'some-key' } });
    expect(out.textContent).toBe('200 text/csv; charset=utf-8\n\none\r\n1\r\n');
  });
});

describe('an open server', () => {
  it('lists every published query in /catalog for the anonymous administrator, none writable', async () => {
    const res = await origin.call('GET', '/catalog');
    expect(res.status).toBe(200);
    expect(res.body.caller).toEqual({ name: '-', admin: true, allow_writes: false, allowed_write_ops: null, rate_limit: null, server_rate_limit: null, budget: null });
    const byName = Object.fromEntries(res.body.queries.map((q: { name: string }) => [q.name, q]));
    expect(byName[READ]).toMatchObject({ can_write: false });
    expect(byName[WRITE]).toMatchObject({ can_write: false });
  });

  it('documents the same queries in /openapi.json, with no security requirement', async () => {
    const doc = (await origin.call('GET', '/openapi.json')).body;
    expect(await validateOpenApi(doc)).toEqual([]);
    expect(doc.security).toBeUndefined();
    const catalog = (await origin.call('GET', '/catalog')).body;
    const documented = Object.keys(doc.paths).filter((path) => path.startsWith('/q/')).map((path) => decodeURIComponent(path.slice(3)));
    expect(documented.sort()).toEqual(catalog.queries.map((q: { name: string }) => q.name).sort());
  });
});
