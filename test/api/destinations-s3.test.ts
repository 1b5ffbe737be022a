import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { recordSecret } from '../harness/run-record.ts';
import { type TestS3, startS3 } from '../harness/s3.ts';
import { unique } from '../harness/unique.ts';

/**
 * Destination probes against a real S3-protocol server that checks request
 * signatures (test/harness/s3.ts): the right credential writes and removes a
 * probe object; a wrong secret or an unreachable store answers 502
 * `connection_failed` whose body never holds the secret.
 */

const API = '/api/v1/destinations';
const BUCKET = 'sluice-exports';

let s3: TestS3;
let origin: Origin;

beforeAll(async () => {
  s3 = await startS3({ buckets: [BUCKET] });
  origin = await startOrigin({ env: { SLUICE_REF_T_S3_SECRET: s3.secretAccessKey } });
});

afterAll(async () => {
  await origin?.stop();
  await s3?.stop();
});

const fields = (extra: Record<string, unknown> = {}) => ({
  url: `s3://${BUCKET}/probes/${unique('p')}`,
  endpoint: s3.endpoint,
  region: s3.region,
  user: s3.accessKeyId,
  password: s3.secretAccessKey,
  ...extra,
});

function expectFailed(res: { status: number; body: any }, ...secrets: string[]) {
  expect(res.status, JSON.stringify(res.body)).toBe(502);
  expect(res.body.code).toBe('connection_failed');
  expect(typeof res.body.detail).toBe('string');
  for (const secret of secrets) {
    expect(JSON.stringify(res.body)).not.toContain(secret);
    expect(JSON.stringify(res.body)).not.toContain(encodeURIComponent(secret));
  }
}

describe('testing an S3 destination', () => {
  it('writes a probe object under the prefix and removes it, with unsaved fields', async () => {
    const body = fields();
    const res = await origin.call('POST', `${API}/test`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ ok: true, duration_ms: expect.any(Number) });
    expect(await s3.listObjects(BUCKET)).toEqual([]);
    expect(await s3.listMultipartUploads(BUCKET)).toEqual([]);
  });

  it('tests a saved destination, its ${VAR} secret expanded at use', async () => {
    const name = unique('saved');
    const created = await origin.call('POST', API, { name, ...fields({ password: '${SLUICE_REF_T_S3_SECRET}' }) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const res = await origin.call('POST', `${API}/${name}/test`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await s3.listObjects(BUCKET)).toEqual([]);
  });

  it('answers 502 connection_failed for a wrong secret, never showing it', async () => {
    const wrong = `Wrong-${randomBytes(15).toString('base64')}`;
    recordSecret('wrong S3 secret', wrong);
    const res = await origin.call('POST', `${API}/test`, fields({ password: wrong }));
    expectFailed(res, wrong, s3.secretAccessKey);
    expect(res.body.detail).toContain('SignatureDoesNotMatch');

    const name = unique('wrong');
    expect((await origin.call('POST', API, { name, ...fields({ password: wrong }) })).status).toBe(201);
    const saved = await origin.call('POST', `${API}/${name}/test`);
    expectFailed(saved, wrong, s3.secretAccessKey);
    expect(await s3.listObjects(BUCKET)).toEqual([]);
  });

  it('answers 502 connection_failed for an unknown access key id and for a missing bucket', async () => {
    const unknownKey = await origin.call('POST', `${API}/test`, fields({ user: 'AKIANOBODYKNOWS0000' }));
    expectFailed(unknownKey, s3.secretAccessKey);
    expect(unknownKey.body.detail).toContain('InvalidAccessKeyId');
    const noBucket = await origin.call('POST', `${API}/test`, fields({ url: 's3://no-such-bucket/x' }));
    expectFailed(noBucket, s3.secretAccessKey);
    expect(noBucket.body.detail).toContain('NoSuchBucket');
  });

  it('answers 502 connection_failed when the store cannot be reached', async () => {
    await s3.pause();
    try {
      const res = await origin.call('POST', `${API}/test`, fields());
      expectFailed(res, s3.secretAccessKey);
      expect(res.body.detail).toContain('could not reach the endpoint, or it did not answer as an S3-compatible store');
    } finally {
      await s3.resume();
    }
    expect((await origin.call('POST', `${API}/test`, fields())).status).toBe(200);
  });

  it("leaves the server's log free of the SDK's multi-line notices", () => {
    expect(origin.logs.join('\n')).not.toContain('NodeVersionSupportWarning');
  });
});
