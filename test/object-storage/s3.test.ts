import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceError } from '../../origin/errors.ts';
import { openObjectStore } from '../../origin/object-storage/index.ts';
import type { ObjectStore } from '../../origin/object-storage/types.ts';
import { type TestS3, startS3 } from '../harness/s3.ts';

/**
 * The S3 writer against a real S3-protocol server that checks signatures
 * (test/harness/s3.ts): a large streamed object arrives byte-equal as a
 * multipart upload; a write aborted or cut mid-way leaves no object and no
 * multipart parts; failures are 502 `connection_failed` without the secret.
 */

const BUCKET = 'sluice-writes';
const NO_EXPORT_DIRS = { SLUICE_EXPORT_DIRS: [], SLUICE_DATA_DIR: '/nonexistent-data-dir' };

let s3: TestS3;
let store: ObjectStore;

beforeAll(async () => {
  s3 = await startS3({ buckets: [BUCKET] });
  store = open('out');
});

afterAll(async () => {
  store?.close();
  await s3?.stop();
});

function open(prefix: string, password = s3.secretAccessKey): ObjectStore {
  return openObjectStore({ name: 'test', url: `s3://${BUCKET}/${prefix}`, region: s3.region, endpoint: s3.endpoint, user: s3.accessKeyId, password }, NO_EXPORT_DIRS);
}

/** `size` random bytes as a stream of uneven chunks, as a serializer yields them. */
function streamOf(data: Buffer, onChunk?: (offset: number) => Promise<void> | void): AsyncIterable<Uint8Array> {
  return (async function* () {
    for (let offset = 0, i = 0; offset < data.length; i++) {
      const size = 10_000 + ((i * 7919) % 90_000);
      await onChunk?.(offset);
      yield data.subarray(offset, offset + size);
      offset += size;
    }
  })();
}

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('the S3 writer', () => {
  it('streams a ~12 MB object as a multipart upload that arrives byte-equal', async () => {
    const data = randomBytes(12 * 2 ** 20 + 4321);
    const written = await store.put('big/object.bin', streamOf(data), { contentType: 'application/octet-stream', signal: new AbortController().signal });
    expect(written).toEqual({ location: `s3://${BUCKET}/out/big/object.bin`, bytes: data.length });
    expect(sha(await s3.getObject(BUCKET, 'out/big/object.bin'))).toBe(sha(data));
    expect(await s3.listMultipartUploads(BUCKET, 'out/big/')).toEqual([]);
  });

  it('writes a small object in one request, and an empty one', async () => {
    const small = await store.put('small.csv', streamOf(Buffer.from('id\n1\n')), { contentType: 'text/csv', signal: new AbortController().signal });
    expect(small).toEqual({ location: `s3://${BUCKET}/out/small.csv`, bytes: 5 });
    expect((await s3.getObject(BUCKET, 'out/small.csv')).toString()).toBe('id\n1\n');
    const empty = await store.put('empty.csv', streamOf(Buffer.alloc(0)), { contentType: 'text/csv', signal: new AbortController().signal });
    expect(empty.bytes).toBe(0);
    expect((await s3.getObject(BUCKET, 'out/empty.csv')).length).toBe(0);
  });

  it('leaves no object and no multipart parts when aborted mid-upload, while the body waits', async () => {
    const data = randomBytes(20 * 2 ** 20);
    const controller = new AbortController();
    const reason = new Error('export cancelled');
    const body = streamOf(data, async (offset) => {
      // Past two parts: some are uploaded, then the source stalls (a slow query) and the run is cancelled.
      if (offset > 17 * 2 ** 20) {
        controller.abort(reason);
        await new Promise(() => {});
      }
    });
    await expect(store.put('aborted/object.bin', body, { contentType: 'application/octet-stream', signal: controller.signal })).rejects.toBe(reason);
    expect(await s3.listObjects(BUCKET, 'out/aborted/')).toEqual([]);
    expect(await s3.listMultipartUploads(BUCKET, 'out/aborted/')).toEqual([]);
  });

  it("reports the body's own failure, leaving no parts", async () => {
    const data = randomBytes(18 * 2 ** 20);
    const failure = new SluiceError('query_failed', 'The database rejected the query');
    const body = streamOf(data, (offset) => {
      if (offset > 17 * 2 ** 20) throw failure;
    });
    await expect(store.put('failed/object.bin', body, { contentType: 'application/octet-stream', signal: new AbortController().signal })).rejects.toBe(failure);
    expect(await s3.listObjects(BUCKET, 'out/failed/')).toEqual([]);
    expect(await s3.listMultipartUploads(BUCKET, 'out/failed/')).toEqual([]);
  });

  for (const mode of ['reset', 500] as const) {
    it(`answers 502 connection_failed when the store cuts the upload (${mode}) and stays down, leaving no object and no stored part`, async () => {
      s3.failAfterBytes(10 * 2 ** 20, mode);
      try {
        const put = store.put(`cut-${mode}/object.bin`, streamOf(randomBytes(30 * 2 ** 20)), { contentType: 'application/octet-stream', signal: new AbortController().signal });
        await expect(put).rejects.toMatchObject({ code: 'connection_failed', status: 502 });
      } finally {
        s3.failAfterBytes(null);
      }
      expect(await s3.listObjects(BUCKET, `out/cut-${mode}/`)).toEqual([]);
      // The store refused the abort too (it fails every request once cut): the upload stays open, holding no part.
      const open = await s3.listMultipartUploads(BUCKET, `out/cut-${mode}/`);
      expect(open.map((upload) => upload.parts)).toEqual([0]);
    });
  }

  it('refuses a wrong secret with 502 connection_failed that never holds it', async () => {
    const wrong = `Wrong-${randomBytes(12).toString('hex')}`;
    const bad = open('out', wrong);
    try {
      const failure = await bad.put('x.csv', streamOf(Buffer.from('x')), { contentType: 'text/csv', signal: new AbortController().signal }).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(SluiceError);
      expect(failure).toMatchObject({ code: 'connection_failed' });
      const shown = JSON.stringify({ message: (failure as SluiceError).message, ...(failure as SluiceError).extras });
      expect(shown).toContain('SignatureDoesNotMatch');
      expect(shown).not.toContain(wrong);
      expect(shown).not.toContain(s3.secretAccessKey);
    } finally {
      bad.close();
    }
    expect(await s3.listObjects(BUCKET, 'out/x.csv')).toEqual([]);
  });

  it('refuses keys that would leave the prefix, and bucket urls without credentials or r2 without an endpoint', async () => {
    for (const key of ['../x', '/x', 'a//b', 'a\\b']) {
      await expect(store.put(key, streamOf(Buffer.from('x')), { contentType: 'text/csv', signal: new AbortController().signal })).rejects.toMatchObject({ code: 'invalid_request' });
    }
    expect(() => openObjectStore({ name: 'n', url: `s3://${BUCKET}/x`, region: null, endpoint: s3.endpoint, user: null, password: null }, NO_EXPORT_DIRS)).toThrow(/needs user/);
    expect(() => openObjectStore({ name: 'n', url: `r2://${BUCKET}/x`, region: null, endpoint: null, user: 'a', password: 'b' }, NO_EXPORT_DIRS)).toThrow(/account endpoint/);
  });

  it('probe writes one object under the prefix and removes it', async () => {
    const before = await s3.listObjects(BUCKET);
    await open('probed/here').probe();
    expect(await s3.listObjects(BUCKET)).toEqual(before);
  });
});
