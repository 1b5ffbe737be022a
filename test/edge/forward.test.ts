import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSERTION_HEADER } from '../../shared/edge/protocol.ts';
import { recordResponse } from '../harness/run-record.ts';
import { ADMIN, ADMIN_KEY, type Stack, createQuery, originRequests, startStack } from './fixture.ts';

/** What the edge sends on to the origin, and how. */
let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.stop());

/** A raw request through the edge (fetch refuses to send Connection and its kin), recorded for the secret scan. */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(stack.edge.url + path, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk) => (body += chunk));
      res.on('end', () => {
        recordResponse({ via: 'edge', method: 'GET', path, status: res.statusCode ?? 0, body });
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', reject).end();
  });
}

describe('forwarding to the origin', () => {
  it('sends the signed assertion instead of the key, never a client’s own assertion, and no hop-by-hop headers', async () => {
    const res = await rawGet('/api/v1/me', {
      'X-API-Key': ADMIN_KEY,
      [ASSERTION_HEADER]: 'a.client-made-assertion',
      Connection: 'keep-alive, X-Hop-Only',
      'X-Hop-Only': 'for the edge alone',
      'X-End-To-End': 'kept',
    });
    expect(res.status).toBe(200);
    const sent = stack.reachedHeaders.at(-1)!;
    expect(stack.reached.at(-1)).toBe('GET /api/v1/me');
    expect(sent['x-api-key']).toBeUndefined();
    expect(sent['x-hop-only']).toBeUndefined();
    expect(sent['x-end-to-end']).toBe('kept');
    expect(sent[ASSERTION_HEADER.toLowerCase()]).toMatch(/^[A-Za-z0-9_-]+\.[0-9a-f]{64}$/);
    expect(sent[ASSERTION_HEADER.toLowerCase()]).not.toBe('a.client-made-assertion');
  });

  it('says on every answer how long the edge took, and how long the origin did when it was asked (Server-Timing)', async () => {
    const forwarded = await stack.call('GET', '/api/v1/me', undefined, ADMIN);
    expect(forwarded.status).toBe(200);
    const timing = forwarded.headers.get('server-timing') ?? '';
    expect(timing).toMatch(/^edge;dur=\d+, origin;dur=\d+$/);
    const [edge, origin] = [...timing.matchAll(/dur=(\d+)/g)].map((match) => Number(match[1]));
    expect(origin).toBeLessThanOrEqual(edge!);
    // Answered by the edge alone: a key it does not know.
    let refused: Awaited<ReturnType<Stack['call']>> | undefined;
    expect(await originRequests(stack, async () => (refused = await stack.call('GET', '/api/v1/me', undefined, { 'X-API-Key': 'slc_not_a_key_the_edge_knows' })))).toBe(0);
    expect(refused!.status).toBe(401);
    expect(refused!.headers.get('server-timing')).toMatch(/^edge;dur=\d+$/);
  });

  it('passes a stream through as it comes: events arrive while the response is still open', async () => {
    const query = await createQuery(stack, { sql: 'SELECT 1 AS one' });
    const controller = new AbortController();
    const res = await stack.fetch('/events', { headers: ADMIN, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    const until = async (pattern: string | RegExp) => {
      while (typeof pattern === 'string' ? !seen.includes(pattern) : !pattern.test(seen)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before "${pattern}": ${seen}`);
        seen += decoder.decode(value, { stream: true });
      }
    };
    try {
      await until(': connected');
      const run = await stack.call('GET', `/q/${query}`, undefined, ADMIN);
      expect(run.status).toBe(200);
      // The whole event, to its blank line: it may arrive in more than one chunk.
      await until(/event: run\n(?:.+\n)+\n/);
      expect(seen).toContain(run.headers.get('x-request-id')!);
    } finally {
      controller.abort();
    }
  });

  it('streams a request body to the origin and a streamed download back', async () => {
    const res = await stack.call('POST', '/execute_sql?stream=true&format=csv', { sql: 'SELECT * FROM range(3) t(n)', connection_name: 'examples' }, ADMIN);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(String(res.body).trim().split(/\r?\n/)).toEqual(['n', '0', '1', '2']);
  });
});
