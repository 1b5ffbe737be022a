import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { countOf, get, parallel, sleep } from './helpers.ts';

/** Behind one trusted proxy, so each test speaks as its own client address. */
const from = (address: string) => ({ 'x-forwarded-for': address });

describe('SLUICE_RATE_LIMIT (per client address)', () => {
  let origin: Origin;
  beforeAll(async () => {
    origin = await startOrigin({ env: { SLUICE_RATE_LIMIT: '3/minute', SLUICE_TRUST_PROXY: '1' } });
  });
  afterAll(() => origin?.stop());

  it('counts down X-RateLimit-Remaining, then answers 429 with Retry-After and the spec body', async () => {
    const client = from('198.51.100.1');
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get(origin, '/catalog', client));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers.get('x-ratelimit-limit'))).toEqual(['3', '3', '3', '3']);
    expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
    const refused = answers[3]!;
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(61);
    expect(refused.body).toEqual({ error: 'Rate limit exceeded', retry_after: retryAfter });
    // The catalog names the limit the headers count against.
    expect(answers[0]!.body.caller.server_rate_limit).toBe('3/minute');
  });

  it('answers the management shape on /api/v1 (code rate_limited, request_id)', async () => {
    const client = from('198.51.100.2');
    for (let i = 0; i < 3; i++) expect((await get(origin, '/api/v1/connections', client)).status).toBe(200);
    const refused = await get(origin, '/api/v1/connections', client);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(refused.body).toEqual({
      error: 'Rate limit exceeded',
      code: 'rate_limited',
      request_id: refused.headers.get('x-request-id'),
      retry_after: retryAfter,
    });
  });

  it('counts every route but /health, unknown paths included', async () => {
    const client = from('198.51.100.3');
    const answers = [
      await get(origin, '/nothing-here', client),
      await get(origin, '/openapi.json', client),
      await get(origin, '/q/no-such-query', client),
      await get(origin, '/catalog', client),
    ];
    expect(answers.map((a) => a.status)).toEqual([404, 200, 404, 429]);
  });

  it('never limits /health and gives it no rate-limit headers', async () => {
    const client = from('198.51.100.1');
    expect((await get(origin, '/catalog', client)).status).toBe(429);
    const answers = await parallel([origin], 20, '/health', () => client);
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(answers.every((a) => a.headers.get('x-ratelimit-limit') === null)).toBe(true);
  });

  it('counts each client address on its own', async () => {
    expect((await get(origin, '/catalog', from('198.51.100.1'))).status).toBe(429);
    const fresh = await get(origin, '/catalog', from('198.51.100.4'));
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('2');
  });
});

describe('without SLUICE_RATE_LIMIT', () => {
  it('sends no rate-limit headers and never answers 429', async () => {
    const origin = await startOrigin();
    try {
      const answers = await parallel([origin], 30, '/catalog');
      expect(countOf(answers, 200)).toBe(30);
      expect(answers.every((a) => a.headers.get('x-ratelimit-limit') === null && a.headers.get('x-ratelimit-remaining') === null)).toBe(true);
    } finally {
      await origin.stop();
    }
  });
});

describe('a malformed SLUICE_RATE_LIMIT', () => {
  for (const value of ['10/fortnight', '0/minute', '10']) {
    it(`stops startup naming the variable: ${JSON.stringify(value)}`, async () => {
      const started = startOrigin({ env: { SLUICE_RATE_LIMIT: value }, template: false });
      await expect(started).rejects.toThrow(/SLUICE_RATE_LIMIT/);
    });
  }
});

describe('a window boundary', () => {
  let origin: Origin;
  beforeAll(async () => {
    origin = await startOrigin({ env: { SLUICE_RATE_LIMIT: '5/second', SLUICE_TRUST_PROXY: '1' } });
  });
  afterAll(() => origin?.stop());

  /** Waits until the clock's millisecond within the second reaches `ms` (the origin shares this machine's clock). */
  async function untilMillisecond(ms: number) {
    const now = Date.now() % 1000;
    await sleep((ms - now + 1000) % 1000);
  }

  it('does not let 2N through on either side of a second boundary', async () => {
    // Five just before a calendar second ends and five just after: a fixed window would allow all ten.
    let conclusive = 0;
    for (let attempt = 0; attempt < 5 && conclusive === 0; attempt++) {
      const client = from(`203.0.113.${attempt + 1}`);
      await untilMillisecond(600);
      const started = Date.now();
      const before = await parallel([origin], 5, '/catalog', () => client);
      await untilMillisecond(30);
      const after = await parallel([origin], 5, '/catalog', () => client);
      // On a loaded machine the two bursts may end up a whole window apart; such a run shows nothing.
      if (Date.now() - started >= 950) continue;
      conclusive++;
      expect(countOf(before, 200)).toBe(5);
      expect(countOf(after, 429)).toBe(5);
    }
    expect(conclusive).toBe(1);
  });
});
