import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, S3Client, paginateListObjectsV2 } from '@aws-sdk/client-s3';
import { recordSecret } from './run-record.ts';
import { AtomicStore } from './s3-atomic-store.ts';
import { type FailureMode, startS3Proxy } from './s3-proxy.ts';
import { type PendingUpload, pendingUploads } from './s3-uploads.ts';

/**
 * A real S3-protocol server for the tests: s3rver on loopback, on a fresh
 * temp folder, behind a proxy (s3-proxy.ts) that checks every request's
 * SigV4 signature with the known secret, so a wrong secret is refused (403
 * SignatureDoesNotMatch, unknown key id 403 InvalidAccessKeyId) as S3 would;
 * s3rver itself never checks a V4 signature. The proxy also serves the
 * ListMultipartUploads and AbortMultipartUpload calls s3rver lacks
 * (s3-uploads.ts), and can cut uploads (`failAfterBytes`) or make the store
 * unreachable (`pause`/`resume`). A cut PutObject leaves no object
 * (s3-atomic-store.ts).
 *
 *   const s3 = await startS3({ buckets: ['exports'] });
 *   await s3.client().send(new PutObjectCommand({ Bucket: 'exports', Key: 'a', Body: 'x' }));
 *   expect(await s3.getObject('exports', 'a')).toEqual(Buffer.from('x'));
 *   await s3.stop();
 *
 * `listObjects`, `getObject` and `listMultipartUploads` read s3rver directly,
 * past the proxy, so they work while it is paused or failing. The secret is
 * recorded for the run's secret scan (run-record.ts).
 */

export interface S3Options {
  /** Default: a new random id. */
  accessKeyId?: string;
  /** Default: a new random 40-character secret. */
  secretAccessKey?: string;
  /** The region requests must be signed for. Default `us-east-1`. */
  region?: string;
  /** Created empty at start (names of 3+ characters). Default `['exports']`. */
  buckets?: string[];
  /** The endpoint's port. Default: a free one. */
  port?: number;
}

export interface ClientOptions {
  accessKeyId?: string;
  secretAccessKey?: string;
  region?: string;
  /** The SDK's attempts per call (it retries network failures and 5xx). Default: the SDK's 3. */
  maxAttempts?: number;
}

export interface TestS3 {
  /** The proxy's URL, what a client or a destination's `endpoint` points at. */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** A client through the proxy with the server's credentials unless told otherwise. Stopped with the server. */
  client(options?: ClientOptions): S3Client;
  listObjects(bucket: string, prefix?: string): Promise<{ key: string; size: number }[]>;
  getObject(bucket: string, key: string): Promise<Buffer>;
  /** Multipart uploads neither completed nor aborted, with their part files on disk. */
  listMultipartUploads(bucket: string, prefix?: string): Promise<PendingUpload[]>;
  /** See S3Proxy.failAfterBytes: `mode` 'reset' cuts the connection, 500 answers InternalError. */
  failAfterBytes(bytes: number | null, mode?: FailureMode): void;
  /** The store becomes unreachable (connections cut, port closed) until `resume()`. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Stops both servers and removes the data folder. */
  stop(): Promise<void>;
}

interface S3rver {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  store: unknown;
  context: { store: unknown };
}

const require = createRequire(import.meta.url);
const S3rverClass = require('s3rver') as new (options: Record<string, unknown>) => S3rver;
/** s3rver's process-wide key registry: it looks up a request's key id there and refuses one it lacks. */
const s3rverAccounts = require('s3rver/lib/models/account.js') as { DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void } };
/** The key pair s3rver always knows, for the helpers that read it directly. */
const S3RVER_KEY = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

function newClient(endpoint: string, region: string, credentials: { accessKeyId: string; secretAccessKey: string }, maxAttempts?: number): S3Client {
  return new S3Client({
    endpoint,
    region,
    credentials,
    maxAttempts,
    // s3rver serves path-style requests on 127.0.0.1 only; and it would store
    // the SDK's default checksum chunk framing as the object (DEPENDENCIES.md).
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export async function startS3(options: S3Options = {}): Promise<TestS3> {
  const accessKeyId = options.accessKeyId ?? `AKIA${randomBytes(8).toString('hex').toUpperCase()}`;
  const secretAccessKey = options.secretAccessKey ?? randomBytes(30).toString('base64');
  const region = options.region ?? 'us-east-1';
  const buckets = options.buckets ?? ['exports'];
  recordSecret('S3 secret access key', secretAccessKey);

  const folder = await mkdtemp(join(tmpdir(), 'sluice-s3-'));
  const root = join(folder, 'data');
  await mkdir(root);
  const s3rver = new S3rverClass({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: root,
    vhostBuckets: false,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  s3rver.store = s3rver.context.store = new AtomicStore(root, join(folder, 'staging'));
  const { port: upstreamPort } = await s3rver.run();
  s3rverAccounts.DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
  const proxy = await startS3Proxy({ upstreamPort, root, port: options.port, keys: { region, secrets: new Map([[accessKeyId, secretAccessKey]]) } });

  const endpoint = `http://127.0.0.1:${proxy.port}`;
  const clients: S3Client[] = [];
  const direct = newClient(`http://127.0.0.1:${upstreamPort}`, region, S3RVER_KEY);
  clients.push(direct);

  return {
    endpoint,
    region,
    accessKeyId,
    secretAccessKey,
    client(overrides = {}) {
      const credentials = { accessKeyId: overrides.accessKeyId ?? accessKeyId, secretAccessKey: overrides.secretAccessKey ?? secretAccessKey };
      const client = newClient(endpoint, overrides.region ?? region, credentials, overrides.maxAttempts);
      clients.push(client);
      return client;
    },
    async listObjects(bucket, prefix = '') {
      const objects: { key: string; size: number }[] = [];
      for await (const page of paginateListObjectsV2({ client: direct }, { Bucket: bucket, Prefix: prefix })) {
        for (const o of page.Contents ?? []) objects.push({ key: o.Key ?? '', size: o.Size ?? 0 });
      }
      return objects;
    },
    async getObject(bucket, key) {
      const { Body } = await direct.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from(await Body!.transformToByteArray());
    },
    listMultipartUploads: (bucket, prefix) => pendingUploads(root, bucket, prefix),
    failAfterBytes: (bytes, mode) => proxy.failAfterBytes(bytes, mode),
    pause: () => proxy.pause(),
    resume: () => proxy.resume(),
    async stop() {
      await proxy.close();
      for (const client of clients) client.destroy();
      await s3rver.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}
