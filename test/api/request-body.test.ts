import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../origin/http/body.ts';
import type { Origin } from '../harness/origin.ts';
import { unique } from '../harness/unique.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';

/**
 * JSON request bodies as the origin reads them off the Node request: text
 * split anywhere (inside a UTF-8 character too) arrives whole, and a body
 * past the limit gets 413 (`payload_too_large` where the error shape has a
 * code), declared or streamed, without costing the client its answer or the
 * next request.
 */

let origin: Origin;
let duck: string;
beforeAll(async () => {
  origin = await sharedOrigin();
  duck = unique('body_duck');
  const made = await origin.call('POST', '/api/v1/connections', { name: duck, db: 'duckdb', database: ':memory:' });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
});
afterAll(async () => {
  await origin?.stop();
});

/** A POST whose body goes out as the given pieces, chunked (no Content-Length). */
function postPieces(path: string, pieces: Uint8Array[]): Promise<Response> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });
  return origin.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
}

/** 413 in the row routes' error shape (`{error}` alone). */
async function expectTooLarge(res: Response) {
  expect(res.status).toBe(413);
  expect(await res.json()).toEqual({ error: 'Request body is larger than 10 MiB' });
}

describe('request bodies', () => {
  it('a body split inside a UTF-8 character arrives whole', async () => {
    const text = 'é€😀 "quoted"';
    const bytes = new TextEncoder().encode(JSON.stringify({ sql: `select '${text}' as t`, connection_name: duck }));
    const cut = bytes.indexOf(0xf0) + 2; // inside the four bytes of 😀
    const res = await postPieces('/execute_sql?format=csv', [bytes.subarray(0, 7), bytes.subarray(7, cut), bytes.subarray(cut)]);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(`t\r\n"${text.replace(/"/g, '""')}"\r\n`);
  });

  it('a declared Content-Length past the limit gets 413 payload_too_large', async () => {
    const padding = 'x'.repeat(MAX_BODY_BYTES);
    const res = await origin.fetch('/execute_sql', { method: 'POST', json: { sql: 'select 1', connection_name: duck, padding } });
    await expectTooLarge(res);
  });

  it('a management route answers 413 in its own shape, with the code', async () => {
    const res = await origin.fetch('/api/v1/connections', { method: 'POST', json: { name: unique('big'), db: 'duckdb', padding: 'x'.repeat(MAX_BODY_BYTES) } });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'Request body is larger than 10 MiB', code: 'payload_too_large', request_id: res.headers.get('x-request-id') });
  });

  it('a chunked body that grows past the limit gets 413, and the next request is answered', async () => {
    const piece = new TextEncoder().encode(' '.repeat(2 ** 20));
    const pieces = [new TextEncoder().encode('{"sql": "select 1",'), ...Array.from({ length: 12 }, () => piece), new TextEncoder().encode('"connection_name": "x"}')];
    await expectTooLarge(await postPieces('/execute_sql', pieces));
    const next = await origin.call('POST', '/execute_sql?format=csv', { sql: 'select 2 as two', connection_name: duck });
    expect(next.status).toBe(200);
    expect(next.body).toBe('two\r\n2\r\n');
  });

  it('a body just under the limit is read', async () => {
    const res = await origin.fetch('/execute_sql?format=csv', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sql: `select 3 as three /* ${'y'.repeat(MAX_BODY_BYTES - 200)} */`, connection_name: duck }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('three\r\n3\r\n');
  });
});
