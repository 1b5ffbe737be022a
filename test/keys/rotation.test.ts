import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { admin, auditOf, createKey, keyAt, startKeysOrigin } from './fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';

/** Key rotation: a new secret shown once, the old one valid through its grace, 409 while pending, ending it early. */

let origin: Origin;
beforeAll(async () => {
  origin = await startKeysOrigin();
});
afterAll(async () => {
  await origin?.stop();
});

/** Whether a secret authenticates (a key with no grants still reads an empty catalog). */
const authenticates = async (secret: string) => {
  const res = await origin.call('GET', '/catalog', undefined, { 'x-api-key': secret });
  expect([200, 401]).toContain(res.status);
  return res.status === 200;
};

const rotate = (name: string, body?: unknown, headers?: Record<string, string>) => admin(origin, 'POST', `${keyAt(name)}/rotate`, body, headers);
const endPrevious = (name: string, headers?: Record<string, string>) => admin(origin, 'DELETE', `${keyAt(name)}/previous`, undefined, headers);

describe('rotate', () => {
  it('returns a new secret once with no-store; both secrets work during the grace (default 60 minutes)', async () => {
    const name = unique('rot');
    const created = await createKey(origin, { name });
    const old = created.body.secret;
    expect(await authenticates(old)).toBe(true);

    const before = Date.now();
    const res = await rotate(name);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('etag')).not.toBe(created.headers.get('etag'));
    expect(res.body.secret).toMatch(/^slc_[0-9A-Za-z]{32}$/);
    expect(res.body.secret).not.toBe(old);
    const graceEnd = Date.parse(res.body.previous_expires_at);
    expect(graceEnd - before).toBeGreaterThanOrEqual(59 * 60_000);
    expect(graceEnd - before).toBeLessThanOrEqual(61 * 60_000);
    expect(res.body.previous_last_used_at).toBeNull();

    expect(await authenticates(res.body.secret)).toBe(true);
    expect(await authenticates(old)).toBe(true);
    const read = await admin(origin, 'GET', keyAt(name));
    expect(read.body.secret).toBeUndefined();
    expect(read.body.previous_expires_at).toBe(res.body.previous_expires_at);
  });

  it('refuses a second rotation while the previous secret lasts: 409 key_rotation_pending', async () => {
    const name = unique('twice');
    const created = await createKey(origin, { name });
    expect((await rotate(name, { grace_minutes: 10 })).status).toBe(200);
    expectError(await rotate(name), 409, 'key_rotation_pending');
    expectError(await rotate(name, { grace_minutes: 0 }), 409, 'key_rotation_pending');
    expect(await authenticates(created.body.secret)).toBe(true);
  });

  it('ends the old secret at once with grace_minutes 0, and then allows rotating again', async () => {
    const name = unique('zero');
    const created = await createKey(origin, { name });
    const res = await rotate(name, { grace_minutes: 0 });
    expect(res.status).toBe(200);
    expect(res.body.previous_expires_at).toBeNull();
    expect(await authenticates(created.body.secret)).toBe(false);
    expect(await authenticates(res.body.secret)).toBe(true);
    expectError(await endPrevious(name), 404, 'previous_secret_not_found');
    const again = await rotate(name, { grace_minutes: 5 });
    expect(again.status).toBe(200);
    expect(await authenticates(res.body.secret)).toBe(true);
    expect(await authenticates(again.body.secret)).toBe(true);
  });

  it('validates grace_minutes and refuses unknown fields', async () => {
    const name = unique('grace');
    await createKey(origin, { name });
    for (const grace of [-1, 10_081, 1.5, '60', null]) {
      const res = await rotate(name, { grace_minutes: grace });
      expectError(res, 400, 'invalid_request');
      expect(Object.keys(res.body.errors)).toEqual(['grace_minutes']);
    }
    expectError(await rotate(name, { grace: 5 }), 400, 'unknown_field');
    expect((await rotate(name, { grace_minutes: 10_080 })).status).toBe(200);
  });

  it('keeps the old secret under the key: revoking or deleting the key stops both', async () => {
    const name = unique('both');
    const created = await createKey(origin, { name });
    const rotated = await rotate(name, {});
    await admin(origin, 'PATCH', keyAt(name), { active: false });
    expect(await authenticates(created.body.secret)).toBe(false);
    expect(await authenticates(rotated.body.secret)).toBe(false);
    await admin(origin, 'PATCH', keyAt(name), { active: true });
    expect(await authenticates(created.body.secret)).toBe(true);
    await admin(origin, 'DELETE', keyAt(name));
    expect(await authenticates(created.body.secret)).toBe(false);
    expect(await authenticates(rotated.body.secret)).toBe(false);
  });

  it('checks If-Match and answers 404 for an unknown key', async () => {
    const name = unique('ifm');
    const created = await createKey(origin, { name });
    await admin(origin, 'PATCH', keyAt(name), { max_rows: 3 });
    expectError(await rotate(name, {}, { 'if-match': created.headers.get('etag')! }), 412, 'precondition_failed');
    expectError(await rotate('no such key'), 404, 'key_not_found');
    expectError(await endPrevious('no such key'), 404, 'key_not_found');
  });
});

describe('end previous secret', () => {
  it('stops the old secret at once and leaves a single secret', async () => {
    const name = unique('end');
    const created = await createKey(origin, { name });
    const rotated = await rotate(name, { grace_minutes: 30 });
    const res = await endPrevious(name);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ name, previous_expires_at: null, previous_last_used_at: null });
    expect(res.body.secret).toBeUndefined();
    expect(await authenticates(created.body.secret)).toBe(false);
    expect(await authenticates(rotated.body.secret)).toBe(true);
    expectError(await endPrevious(name), 404, 'previous_secret_not_found');
    expect((await rotate(name)).status).toBe(200);
  });

  it('answers 404 previous_secret_not_found for a key never rotated', async () => {
    const name = unique('never');
    await createKey(origin, { name });
    expectError(await endPrevious(name), 404, 'previous_secret_not_found');
  });
});

describe('audit', () => {
  it('records rotate_api_key and end_previous_secret without any secret', async () => {
    const name = unique('aud');
    const created = await createKey(origin, { name });
    const rotated = await rotate(name, { grace_minutes: 15 });
    await endPrevious(name);
    const [rotation] = await auditOf(origin, 'rotate_api_key', name);
    expect(rotation.changes).toEqual({ grace_minutes: 15, previous_expires_at: expect.any(String) });
    const [ended] = await auditOf(origin, 'end_previous_secret', name);
    expect(ended.changes).toEqual({ previous_expires_at: { from: rotation.changes.previous_expires_at, to: null } });
    for (const entry of [rotation, ended]) {
      const text = JSON.stringify(entry.changes);
      expect(text).not.toContain(created.body.secret);
      expect(text).not.toContain(rotated.body.secret);
      expect(text).not.toMatch(/hash|secret/);
    }
  });
});
