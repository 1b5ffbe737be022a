import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
  type S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestS3, startS3 } from './s3.ts';

/** The test S3 server (s3.ts) through the real SDK: it stores what a signed client sends and refuses what S3 would refuse. */

const MB = 1024 * 1024;

/** The SDK call's failure, as the SDK reports it. */
async function failure(call: Promise<unknown>): Promise<{ name: string; status?: number }> {
  const err = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as S3ServiceException | undefined;
  if (!err) throw new Error('the call succeeded');
  return { name: err.name, status: err.$metadata?.httpStatusCode };
}

/** `size` bytes of a fixed pseudo-random sequence in 1 MB chunks, and their SHA-256. */
function body(size: number, seed: string): { chunks: Buffer[]; sha256: string } {
  const chunks: Buffer[] = [];
  const hash = createHash('sha256');
  for (let at = 0, n = 0; at < size; at += MB, n++) {
    const chunk = Buffer.alloc(Math.min(MB, size - at), createHash('sha256').update(`${seed}${n}`).digest('hex'));
    chunks.push(chunk);
    hash.update(chunk);
  }
  return { chunks, sha256: hash.digest('hex') };
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('test S3 server', () => {
  let s3: TestS3;
  let client: S3Client;
  beforeAll(async () => {
    s3 = await startS3({ buckets: ['exports'] });
    client = s3.client();
  });
  afterAll(() => s3?.stop());

  it('stores, lists and returns objects for a client holding the secret', async () => {
    await client.send(new PutObjectCommand({ Bucket: 'exports', Key: 'a/one file.csv', Body: 'id\n1\n' }));
    await client.send(new PutObjectCommand({ Bucket: 'exports', Key: 'a/two+ü.ndjson', Body: '{"id":2}\n' }));
    await client.send(new PutObjectCommand({ Bucket: 'exports', Key: 'b/three.csv', Body: 'x' }));

    const listed = await client.send(new ListObjectsV2Command({ Bucket: 'exports', Prefix: 'a/' }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(['a/one file.csv', 'a/two+ü.ndjson']);
    const got = await client.send(new GetObjectCommand({ Bucket: 'exports', Key: 'a/two+ü.ndjson' }));
    expect(await got.Body?.transformToString()).toBe('{"id":2}\n');

    expect(await s3.listObjects('exports', 'a/')).toEqual([
      { key: 'a/one file.csv', size: 5 },
      { key: 'a/two+ü.ndjson', size: 9 },
    ]);
    expect((await s3.getObject('exports', 'a/one file.csv')).toString()).toBe('id\n1\n');
  });

  it('refuses a wrong secret with 403 SignatureDoesNotMatch and stores nothing', async () => {
    const wrong = s3.client({ secretAccessKey: `${s3.secretAccessKey}x`, maxAttempts: 1 });
    expect(await failure(wrong.send(new PutObjectCommand({ Bucket: 'exports', Key: 'refused.csv', Body: 'x' })))).toEqual({ name: 'SignatureDoesNotMatch', status: 403 });
    expect(await failure(wrong.send(new GetObjectCommand({ Bucket: 'exports', Key: 'a/one file.csv' })))).toEqual({ name: 'SignatureDoesNotMatch', status: 403 });
    expect(await failure(wrong.send(new ListObjectsV2Command({ Bucket: 'exports' })))).toEqual({ name: 'SignatureDoesNotMatch', status: 403 });
    expect(await s3.listObjects('exports', 'refused')).toEqual([]);
  });

  it('refuses an unknown access key id with 403 InvalidAccessKeyId', async () => {
    const stranger = s3.client({ accessKeyId: 'AKIANOTKNOWNHERE0000', maxAttempts: 1 });
    expect(await failure(stranger.send(new PutObjectCommand({ Bucket: 'exports', Key: 'refused.csv', Body: 'x' })))).toEqual({ name: 'InvalidAccessKeyId', status: 403 });
    expect(await s3.listObjects('exports', 'refused')).toEqual([]);
  });

  it('refuses a body changed after signing, and a request signed for another region', async () => {
    const tampering = s3.client({ maxAttempts: 1 });
    // The deserialize step runs after signing: the body sent is not the one signed.
    tampering.middlewareStack.add((next) => (args) => next({ ...args, request: Object.assign(args.request as object, { body: 'evil' }) }), { step: 'deserialize' });
    const tampered = tampering.send(new PutObjectCommand({ Bucket: 'exports', Key: 'tampered.csv', Body: 'good' }));
    expect(await failure(tampered)).toEqual({ name: 'XAmzContentSHA256Mismatch', status: 400 });
    expect(await s3.listObjects('exports', 'tampered')).toEqual([]);

    const elsewhere = s3.client({ region: 'eu-west-1', maxAttempts: 1 });
    expect(await failure(elsewhere.send(new ListObjectsV2Command({ Bucket: 'exports' })))).toEqual({ name: 'AuthorizationHeaderMalformed', status: 400 });
  });

  it('accepts a presigned URL made with the secret and refuses one made with another', async () => {
    const { hostname, port } = new URL(s3.endpoint);
    const presign = (secretAccessKey: string) =>
      new SignatureV4({ service: 's3', region: s3.region, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey }, sha256: Sha256, uriEscapePath: false }).presign(
        { method: 'GET', protocol: 'http:', hostname, port: Number(port), path: '/exports/a/one%20file.csv', query: {}, headers: { host: `${hostname}:${port}`, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' } },
        { expiresIn: 60 },
      );
    const url = async (secret: string) => {
      const signed = await presign(secret);
      return `${s3.endpoint}${signed.path}?${new URLSearchParams(signed.query as Record<string, string>)}`;
    };
    const good = await fetch(await url(s3.secretAccessKey));
    expect([good.status, await good.text()]).toEqual([200, 'id\n1\n']);
    const bad = await fetch(await url('not-the-secret'));
    expect(bad.status).toBe(403);
    expect(await bad.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    const unsigned = await fetch(`${s3.endpoint}/exports/a/one%20file.csv`);
    expect(unsigned.status).toBe(403);
  });

  it('takes a ~12 MB multipart upload streamed from a Readable, byte-equal, leaving no parts', async () => {
    const { chunks, sha256: expected } = body(12 * MB + 12345, 'multipart');
    const upload = new Upload({ client, params: { Bucket: 'exports', Key: 'big/rows.parquet', Body: Readable.from(chunks) }, partSize: 5 * MB, queueSize: 2 });
    const parts: number[] = [];
    upload.on('httpUploadProgress', (p) => parts.push(p.part ?? 0));
    await upload.done();

    expect(new Set(parts)).toEqual(new Set([1, 2, 3]));
    const stored = await s3.getObject('exports', 'big/rows.parquet');
    expect([stored.length, sha256(stored)]).toEqual([12 * MB + 12345, expected]);
    expect(await s3.listMultipartUploads('exports')).toEqual([]);
    expect((await client.send(new ListMultipartUploadsCommand({ Bucket: 'exports' }))).Uploads ?? []).toEqual([]);
  });

  it('lists a pending multipart upload and aborts it, leaving no parts and refusing further parts', async () => {
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: 'exports', Key: 'pending/x.csv' }));
    await client.send(new UploadPartCommand({ Bucket: 'exports', Key: 'pending/x.csv', UploadId, PartNumber: 1, Body: randomBytes(5 * MB) }));
    const listed = await client.send(new ListMultipartUploadsCommand({ Bucket: 'exports', Prefix: 'pending/' }));
    expect(listed.Uploads?.map((u) => [u.Key, u.UploadId])).toEqual([['pending/x.csv', UploadId]]);
    expect(await s3.listMultipartUploads('exports')).toMatchObject([{ key: 'pending/x.csv', uploadId: UploadId, parts: 1 }]);

    await client.send(new AbortMultipartUploadCommand({ Bucket: 'exports', Key: 'pending/x.csv', UploadId }));
    expect(await s3.listMultipartUploads('exports')).toEqual([]);
    expect((await client.send(new ListMultipartUploadsCommand({ Bucket: 'exports' }))).Uploads ?? []).toEqual([]);
    const late = client.send(new UploadPartCommand({ Bucket: 'exports', Key: 'pending/x.csv', UploadId, PartNumber: 2, Body: 'late' }));
    expect(await failure(late)).toEqual({ name: 'NoSuchUpload', status: 404 });
    expect(await s3.listMultipartUploads('exports')).toEqual([]);
    expect(await s3.listObjects('exports', 'pending/')).toEqual([]);
  });
});

describe('test S3 server made to fail', () => {
  it('fails an upload under way when paused, and serves again after resume', async () => {
    const s3 = await startS3();
    try {
      const client = s3.client();
      const { chunks } = body(12 * MB, 'paused');
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      // The first 6 MB fill part 1; the rest waits until the store is unreachable.
      const source = Readable.from(
        (async function* () {
          yield* chunks.slice(0, 6);
          await gate;
          yield* chunks.slice(6);
        })(),
      );
      const upload = new Upload({ client, params: { Bucket: 'exports', Key: 'cut/rows.csv', Body: source }, partSize: 5 * MB, queueSize: 1 });
      upload.on('httpUploadProgress', () => {
        void s3.pause().then(release);
      });
      await expect(upload.done()).rejects.toThrow();

      await s3.resume();
      expect(await s3.listObjects('exports', 'cut/')).toEqual([]);
      // The abort lib-storage sent found the store gone too: the parts stay, as they would on S3.
      expect((await client.send(new ListMultipartUploadsCommand({ Bucket: 'exports' }))).Uploads?.map((u) => u.Key)).toEqual(['cut/rows.csv']);
      await client.send(new PutObjectCommand({ Bucket: 'exports', Key: 'after.csv', Body: 'ok' }));
      expect((await s3.getObject('exports', 'after.csv')).toString()).toBe('ok');
    } finally {
      await s3.stop();
    }
  });

  it('cuts the connection after some request-body bytes until healed, leaving no partial object', async () => {
    const s3 = await startS3();
    try {
      const client = s3.client();
      await client.send(new PutObjectCommand({ Bucket: 'exports', Key: 'kept.csv', Body: 'old' }));
      s3.failAfterBytes(1 * MB);
      const put = client.send(new PutObjectCommand({ Bucket: 'exports', Key: 'kept.csv', Body: Readable.from(body(3 * MB, 'put').chunks), ContentLength: 3 * MB }));
      await expect(put).rejects.toThrow();
      expect((await s3.getObject('exports', 'kept.csv')).toString()).toBe('old');

      s3.failAfterBytes(7 * MB);
      const { chunks } = body(12 * MB, 'cut');
      const upload = new Upload({ client, params: { Bucket: 'exports', Key: 'cut/rows.csv', Body: Readable.from(chunks) }, partSize: 5 * MB, queueSize: 1 });
      await expect(upload.done()).rejects.toThrow();
      expect(await s3.listObjects('exports', 'cut/')).toEqual([]);
      // Its abort was cut too: part 1 stays until someone aborts it.
      expect(await s3.listMultipartUploads('exports')).toMatchObject([{ key: 'cut/rows.csv', parts: 1 }]);

      s3.failAfterBytes(null);
      const again = new Upload({ client, params: { Bucket: 'exports', Key: 'cut/rows.csv', Body: Readable.from(chunks) }, partSize: 5 * MB, queueSize: 1 });
      await again.done();
      expect((await s3.getObject('exports', 'cut/rows.csv')).length).toBe(12 * MB);
    } finally {
      await s3.stop();
    }
  });

  it('answers 500 InternalError instead when asked to', async () => {
    const s3 = await startS3();
    try {
      s3.failAfterBytes(0, 500);
      const put = s3.client({ maxAttempts: 1 }).send(new PutObjectCommand({ Bucket: 'exports', Key: 'five-hundred.csv', Body: 'x' }));
      expect(await failure(put)).toEqual({ name: 'InternalError', status: 500 });
      expect(await s3.listObjects('exports')).toEqual([]);
    } finally {
      await s3.stop();
    }
  });
});

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: SourceData) =>
  typeof data === 'string' ? data : ArrayBuffer.isView(data) ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : Buffer.from(data);

/** node:crypto's SHA-256, or HMAC-SHA-256 given a key, in the shape the SDK's signer takes. */
class Sha256 {
  private readonly hash;
  constructor(key?: SourceData) {
    this.hash = key === undefined ? createHash('sha256') : createHmac('sha256', bytes(key));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return this.hash.digest();
  }
}
