import { expect } from 'vitest';
import type { Origin } from '../harness/origin.ts';

/** Shared helpers of the access tests: server-key calls, administrators with tokens, keys, error checks. */

export const ADMIN_KEY = 'access-test-admin-key-0123456789';

export type Reply = { status: number; headers: Headers; body: any };


export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const apiKey = (secret: string) => ({ 'x-api-key': secret });

/** A Management API call with the server key. */
export function asAdmin(origin: Origin, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return origin.call(method, path, body, { 'x-api-key': ADMIN_KEY, ...headers });
}

export function expectStatus(res: Reply, status: number): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
}

/** The one 401 body every authentication failure gets, whatever went wrong. */
export function expectUnauthorized(res: Reply): void {
  expectStatus(res, 401);
  const body = { ...res.body };
  if ('request_id' in body) {
    expect(body.request_id).toBe(res.headers.get('x-request-id'));
    delete body.request_id;
  }
  expect(body).toEqual(
    'code' in body ? { error: 'Missing or invalid API key', code: 'unauthorized' } : { error: 'Missing or invalid API key' },
  );
}

/** Creates an administrator (with `caller` headers, default the server key) and issues them a token; returns its secret. */
export async function adminWithToken(
  origin: Origin,
  name: string,
  role: string | null,
  caller: Record<string, string> = apiKey(ADMIN_KEY),
): Promise<string> {
  const created = await origin.call('POST', '/api/v1/administrators', { name, role }, caller);
  expectStatus(created, 201);
  const issued = await origin.call('POST', `/api/v1/administrators/${encodeURIComponent(name)}/tokens`, { label: 'test' }, caller);
  expectStatus(issued, 201);
  expect(issued.body.secret).toMatch(/^slc_adm_[0-9A-Za-z]{32}$/);
  return issued.body.secret;
}

/** Creates a scoped key through `/api/v1/api-keys` with the server key; returns its secret. */
export async function scopedKey(origin: Origin, name: string, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await asAdmin(origin, 'POST', '/api/v1/api-keys', { name, connections: ['*'], ...fields });
  expectStatus(res, 201);
  return res.body.secret;
}

/** `YYYY-MM-DD` of `epochMs` in an IANA zone. */
export function dateIn(zone: string, epochMs: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(epochMs));
}

const DAY_MS = 86_400_000;
export const shiftDate = (date: string, days: number) => new Date(Date.parse(`${date}T12:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** Audit entries of one action and target, newest first. */
export async function auditOf(origin: Origin, action: string, target: string): Promise<any[]> {
  const res = await asAdmin(origin, 'GET', `/api/v1/audit?action=${encodeURIComponent(action)}&target=${encodeURIComponent(target)}`);
  expectStatus(res, 200);
  return res.body.items;
}
