import { expect } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';

/** Shared helpers of the key and role tests: an origin with the server key set, admin calls, error checks. */

export const ADMIN_KEY = 'test-admin-key-0123456789';
export const KEYS = '/api/v1/api-keys';
export const ROLES = '/api/v1/roles';
export const keyAt = (name: string) => `${KEYS}/${encodeURIComponent(name)}`;
export const roleAt = (name: string) => `${ROLES}/${encodeURIComponent(name)}`;
export const ZONED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/;


export type Reply = { status: number; headers: Headers; body: any };

/** An origin with `SLUICE_API_KEY` set, so authentication never depends on whether a scoped key exists. */
export function startKeysOrigin(env: Record<string, string> = {}): Promise<Origin> {
  return startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY, ...env } });
}

/** A Management API call with the server key. */
export function admin(origin: Origin, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return origin.call(method, path, body, { 'x-api-key': ADMIN_KEY, ...headers });
}

/** Creates a key and checks the 201. */
export async function createKey(origin: Origin, body: Record<string, unknown>): Promise<Reply> {
  const res = await admin(origin, 'POST', KEYS, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res;
}

/** Audit entries of one action and target, newest first. */
export async function auditOf(origin: Origin, action: string, target: string): Promise<any[]> {
  const res = await admin(origin, 'GET', `/api/v1/audit?action=${encodeURIComponent(action)}&target=${encodeURIComponent(target)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items;
}
