/**
 * The S3-protocol server of export-s3: the tests' server (test/harness/s3.ts,
 * s3rver behind a proxy checking each request's SigV4 signature) with the
 * key pair given in BENCH_S3_KEY_ID and BENCH_S3_SECRET and one bucket,
 * `exports`. Its own process, so serving an upload never shares an event
 * loop with the bench's own uploads. Prints `{"port":N}` and `listening`;
 * SIGTERM stops it and removes its data.
 */
import { startS3 } from '../test/harness/s3.ts';

const s3 = await startS3({ accessKeyId: process.env.BENCH_S3_KEY_ID!, secretAccessKey: process.env.BENCH_S3_SECRET!, buckets: ['exports'] });
process.once('SIGTERM', () => {
  s3.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
console.log(JSON.stringify({ port: Number(new URL(s3.endpoint).port), message: 'S3 server listening' }));
