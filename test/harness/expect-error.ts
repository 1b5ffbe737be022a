import { expect } from 'vitest';

/** A management error: `{error, code, request_id}` with the request id of the response. */
export function expectError(res: { status: number; headers: Headers; body: any }, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.code).toBe(code);
  expect(typeof res.body.error).toBe('string');
  expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
}
