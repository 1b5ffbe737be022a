import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { BenchContext } from './context.ts';
import { DUCK_TABLE } from './dataset.ts';
import { startServer, type Server } from './process.ts';
import { duckCopyOnce } from './stream.ts';

/** The bucket bench/s3-server.ts creates. */
export const BUCKET = 'exports';
const REGION = 'us-east-1';

/** The origin's multipart settings (origin/object-storage/s3.ts), so the baseline uploads the way it does. */
export const PART_SIZE = 8 * 2 ** 20;
export const QUEUE_SIZE = 2;

// As the origin does (object-storage/s3.ts): the SDK's multi-line notice about Node 22 would break into the bench's output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export interface UploadRun {
  seconds: number;
  bytes: number;
}

export interface BenchS3 {
  /** `POST /api/v1/destinations` fields for `s3://exports/<prefix>` on this server. */
  destination(prefix: string): Record<string, unknown>;
  /** One lib-storage Upload of a local file, from this process. */
  uploadFile(file: string, key: string): Promise<UploadRun>;
  /** The stored object's size (HeadObject). */
  size(key: string): Promise<number>;
  /** Downloads an object to a local file. */
  download(key: string, file: string): Promise<void>;
  stop(): Promise<void>;
}

/** The key of an `s3://exports/<key>` location an export run answers. */
export function keyOf(location: string): string {
  const prefix = `s3://${BUCKET}/`;
  if (!location.startsWith(prefix)) throw new Error(`not an object of bucket ${BUCKET}: ${location}`);
  return location.slice(prefix.length);
}

/** Starts bench/s3-server.ts as its own process, with a fresh key pair, and a client for it. */
export async function startBenchS3(ctx: BenchContext): Promise<BenchS3> {
  const credentials = { accessKeyId: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`, secretAccessKey: randomBytes(30).toString('base64') };
  const server: Server = await startServer(
    'bench/s3-server.ts',
    { BENCH_S3_KEY_ID: credentials.accessKeyId, BENCH_S3_SECRET: credentials.secretAccessKey },
    join(ctx.workDir, 's3-server.log'),
  );
  const client = new S3Client({
    endpoint: server.url,
    region: REGION,
    credentials,
    // s3rver serves path-style requests only, and would store the SDK's checksum framing as the object (DEPENDENCIES.md).
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    destination: (prefix) => ({
      url: `s3://${BUCKET}/${prefix}`,
      endpoint: server.url,
      region: REGION,
      user: credentials.accessKeyId,
      password: credentials.secretAccessKey,
    }),
    async uploadFile(file, key) {
      const { size } = await stat(file);
      const started = performance.now();
      const upload = new Upload({ client, params: { Bucket: BUCKET, Key: key, Body: createReadStream(file) }, partSize: PART_SIZE, queueSize: QUEUE_SIZE });
      await upload.done();
      const seconds = (performance.now() - started) / 1000;
      ctx.log(`  lib-storage upload: ${(size / 2 ** 20).toFixed(0)} MiB in ${seconds.toFixed(2)} s`);
      return { seconds, bytes: size };
    },
    async size(key) {
      const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
      return head.ContentLength ?? -1;
    },
    async download(key, file) {
      const { Body } = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
      await pipeline(Body as Readable, createWriteStream(file));
    },
    async stop() {
      client.destroy();
      await server.stop();
    },
  };
}

/** DuckDB's COPY to a local parquet file, then that file uploaded: the plain way to the same object. */
export interface CopyUploadRun {
  copySeconds: number;
  uploadSeconds: number;
  seconds: number;
  rowsPerSecond: number;
  bytes: number;
  storedBytes: number;
}

export async function copyThenUpload(ctx: BenchContext, s3: BenchS3, run: number): Promise<CopyUploadRun> {
  const copy = await duckCopyOnce(ctx, DUCK_TABLE, 'parquet', ctx.rows);
  const key = `baseline/${run}.parquet`;
  const upload = await s3.uploadFile(copy.file, key);
  const seconds = copy.seconds + upload.seconds;
  return { copySeconds: copy.seconds, uploadSeconds: upload.seconds, seconds, rowsPerSecond: ctx.rows / seconds, bytes: upload.bytes, storedBytes: await s3.size(key) };
}
