import type { Context } from 'hono';
import { describe, expect, it } from 'vitest';
import { requestHeader } from '../../origin/http/request-header.ts';

/** A context as @hono/node-server makes it, with only the Node request's raw headers. */
const onNode = (rawHeaders: string[]) => ({ env: { incoming: { rawHeaders } } }) as unknown as Context;

describe('requestHeader', () => {
  it('reads a header off the Node request as Headers.get would: any case, every occurrence joined', () => {
    const raw = ['Host', 'x', 'X-API-Key', 'slc_a', 'Accept', '*/*', 'x-api-key', 'slc_b'];
    const headers = new Headers();
    for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
    for (const name of ['x-api-key', 'X-Api-Key', 'accept', 'authorization']) {
      expect(requestHeader(onNode(raw), name)).toBe(headers.get(name) ?? undefined);
    }
    expect(requestHeader(onNode(raw), 'x-api-key')).toBe('slc_a, slc_b');
  });

  it('asks the request itself where there is no Node request (a Worker, an in-process client)', () => {
    const c = { env: undefined, req: { header: (name: string) => (name === 'origin' ? 'https://a.example' : undefined) } } as unknown as Context;
    expect(requestHeader(c, 'origin')).toBe('https://a.example');
  });
});
