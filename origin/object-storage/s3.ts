import { randomUUID } from 'node:crypto';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { createRedactor } from '../drivers/redact.ts';
import { badRequest } from '../errors.ts';
import { assertLiteralAllowed, guardedLookup } from '../network/endpoint-deny.ts';
import { watchBody } from './body.ts';
import { bucketFailed } from './failure.ts';
import { assertSafeKey, underPrefix } from './key.ts';
import type { DestinationSettings, ObjectStore, ObjectWriteOptions, WrittenObject } from './types.ts';
import type { BucketTarget } from './url.ts';
import { NO_SPAN, type TraceSpan } from '../observability/tracing/span.ts';

/**
 * One S3 client for the three bucket schemes: Amazon S3, Google Cloud
 * Storage's XML API (HMAC keys) and Cloudflare R2 all speak the S3 protocol.
 * Objects are written as multipart uploads of PART_SIZE parts, at most
 * QUEUE_SIZE in flight, so memory stays flat whatever the object's size.
 */

/** lib-storage's smallest part is 5 MiB; 8 MiB parts allow objects up to 80 GiB (10,000 parts). */
const PART_SIZE = 8 * 2 ** 20;
/**
 * Two parts in flight: a third added ~8 MiB at the 5M-row export's peak
 * (255 vs 245-247 MiB on its first run, 2026-11-27) for no rate gained on
 * loopback (0.91 vs 0.93 of COPY + upload).
 */
const QUEUE_SIZE = 2;

const DEFAULT_ENDPOINT: Partial<Record<BucketTarget['scheme'], string>> = { gs: 'https://storage.googleapis.com' };
/** GCS and R2 take any region in a signature; `auto` is what both document. */
const DEFAULT_REGION: Record<BucketTarget['scheme'], string> = { s3: 'us-east-1', gs: 'auto', r2: 'auto' };

// The SDK's notice that its releases from 2027 need Node 22 is multi-line text on stderr (breaking one-line JSON logs); the installed version runs here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

interface Sdk {
  S3Client: typeof import('@aws-sdk/client-s3').S3Client;
  DeleteObjectCommand: typeof import('@aws-sdk/client-s3').DeleteObjectCommand;
  ListObjectsV2Command: typeof import('@aws-sdk/client-s3').ListObjectsV2Command;
  ListMultipartUploadsCommand: typeof import('@aws-sdk/client-s3').ListMultipartUploadsCommand;
  AbortMultipartUploadCommand: typeof import('@aws-sdk/client-s3').AbortMultipartUploadCommand;
  GetObjectCommand: typeof import('@aws-sdk/client-s3').GetObjectCommand;
  Upload: typeof import('@aws-sdk/lib-storage').Upload;
}
let sdk: Promise<Sdk> | undefined;
/** The AWS SDK (~6 MiB of an idle origin's RSS) is loaded with the first bucket destination used, not by every origin at startup. */
const loadSdk = (): Promise<Sdk> =>
  (sdk ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]).then(([s3, storage]) => ({
    S3Client: s3.S3Client,
    DeleteObjectCommand: s3.DeleteObjectCommand,
    ListObjectsV2Command: s3.ListObjectsV2Command,
    ListMultipartUploadsCommand: s3.ListMultipartUploadsCommand,
    AbortMultipartUploadCommand: s3.AbortMultipartUploadCommand,
    GetObjectCommand: s3.GetObjectCommand,
    Upload: storage.Upload,
  })));
let presigner: Promise<typeof import('@aws-sdk/s3-request-presigner')> | undefined;
/** Only origins that hand out links to objects (stored results in a bucket) load the presigner. */
const loadPresigner = () => (presigner ??= import('@aws-sdk/s3-request-presigner'));

/**
 * `client`, each part it uploads (a multipart upload's parts, or the one
 * PutObject of a small object) traced as `sluice.upload.part` under the
 * span its object's upload was given.
 */
function withPartSpans(client: S3Client, uploading: Map<string, TraceSpan>): S3Client {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Key?: string; PartNumber?: number; Body?: unknown };
      const parent = input.Key === undefined ? undefined : uploading.get(input.Key);
      if (!parent || (context.commandName !== 'UploadPartCommand' && context.commandName !== 'PutObjectCommand')) return next(args);
      const bytes = input.Body instanceof Uint8Array ? input.Body.byteLength : undefined;
      const span = parent.child('sluice.upload.part', { 'sluice.part': input.PartNumber ?? 1, 'sluice.bytes': bytes }, 'client');
      try {
        return await next(args);
      } catch (err) {
        span.fail('connection_failed');
        throw err;
      } finally {
        span.end();
      }
    },
    { step: 'initialize', name: 'sluiceUploadPartSpans' },
  );
  return client;
}

const noCredentialChain = () => async (): Promise<never> => {
  throw new Error('A destination uses only the credentials it is given');
};

/** `deny`: SLUICE_ENDPOINT_DENY, checked on the endpoint's address before each connection. */
export function createBucketStore(target: BucketTarget, settings: DestinationSettings, deny: string[]): ObjectStore {
  const { user, password } = settings;
  // Instance roles and the SDK's own chain (environment, profiles) are never used (spec, Limits).
  if (!user || !password) throw badRequest(`Destination "${settings.name}" needs user (access key id) and password (secret key)`, { errors: { user: 'required', password: 'required' } });
  const endpoint = settings.endpoint ?? DEFAULT_ENDPOINT[target.scheme];
  if (target.scheme === 'r2' && !endpoint) throw badRequest('An r2:// destination needs its account endpoint (https://<account id>.r2.cloudflarestorage.com)', { errors: { endpoint: 'required' } });
  // A literal address never goes through the agents' lookup: checked here, before anything connects.
  if (endpoint) {
    if (!URL.canParse(endpoint)) throw badRequest('endpoint is not a valid http(s) address', { errors: { endpoint: 'is not a valid address' } });
    assertLiteralAllowed(new URL(endpoint).hostname, deny);
  }
  const lookup = guardedLookup(deny);
  const options: ConstructorParameters<Sdk['S3Client']>[0] = {
    region: settings.region ?? DEFAULT_REGION[target.scheme],
    endpoint,
    forcePathStyle: endpoint !== undefined,
    credentials: { accessKeyId: user, secretAccessKey: password },
    credentialDefaultProvider: noCredentialChain,
    // Without these, streamed uploads to S3-compatible stores can store the checksum framing as the object.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Settings the SDK would otherwise read from the server's environment and ~/.aws files.
    ignoreConfiguredEndpointUrls: true,
    useFipsEndpoint: false,
    useDualstackEndpoint: false,
    useArnRegion: false,
    disableS3ExpressSessionAuth: true,
    maxAttempts: 3,
    retryMode: 'standard',
    defaultsMode: 'standard',
    // Agents of their own, whose lookup refuses denied addresses and hands the socket the address it checked.
    requestHandler: {
      connectionTimeout: 10_000,
      requestTimeout: 60_000,
      httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 50, lookup }),
      httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 50, lookup }),
    },
  };
  let client: S3Client | undefined;
  /** The span of each upload under way, by its full key: each of its parts is traced under it. */
  const uploading = new Map<string, TraceSpan>();
  const connect = async () => {
    const aws = await loadSdk();
    client ??= withPartSpans(new aws.S3Client(options), uploading);
    return { aws, client };
  };
  const redact = createRedactor(password);
  const location = (key: string) => `${target.scheme}://${target.bucket}/${key}`;

  async function remove(key: string): Promise<void> {
    const { aws, client } = await connect();
    await client.send(new aws.DeleteObjectCommand({ Bucket: target.bucket, Key: key }));
  }

  async function put(key: string, source: AsyncIterable<Uint8Array>, { contentType, signal, span }: ObjectWriteOptions): Promise<WrittenObject> {
    assertSafeKey(key);
    signal.throwIfAborted();
    const fullKey = underPrefix(target.prefix, key);
    const { aws, client } = await connect();
    if (span && span !== NO_SPAN) uploading.set(fullKey, span);
    try {
      return await upload(aws, client, fullKey, source, { contentType, signal });
    } finally {
      uploading.delete(fullKey);
    }
  }

  async function upload(aws: Sdk, client: S3Client, fullKey: string, source: AsyncIterable<Uint8Array>, { contentType, signal }: ObjectWriteOptions): Promise<WrittenObject> {
    const body = watchBody(source, signal);
    const upload = new aws.Upload({
      client,
      params: { Bucket: target.bucket, Key: fullKey, Body: Readable.from(body.chunks), ContentType: contentType },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    try {
      // A body that ends early makes done() abort the multipart upload before it rejects, so no part is left behind.
      await upload.done();
    } catch (err) {
      await upload.abort();
      if (signal.aborted) throw signal.reason;
      if (body.failure !== undefined) throw body.failure;
      throw bucketFailed(err, `writing ${location(fullKey)}`, redact);
    }
    // Aborted after the last part was sent: the object is complete but unwanted.
    if (signal.aborted) {
      await remove(fullKey).catch(() => {});
      throw signal.reason;
    }
    return { location: location(fullKey), bytes: body.bytes };
  }

  /** Every object and unfinished upload under `folder/`; each listing page is at most 1,000. */
  async function removeUnder(folder: string): Promise<void> {
    assertSafeKey(folder);
    const under = `${underPrefix(target.prefix, folder)}/`;
    const { aws, client } = await connect();
    try {
      let token: string | undefined;
      do {
        const page = await client.send(new aws.ListObjectsV2Command({ Bucket: target.bucket, Prefix: under, ContinuationToken: token }));
        for (const object of page.Contents ?? []) if (object.Key) await remove(object.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      const uploads = await client.send(new aws.ListMultipartUploadsCommand({ Bucket: target.bucket, Prefix: under }));
      for (const upload of uploads.Uploads ?? []) {
        if (upload.Key && upload.UploadId) await client.send(new aws.AbortMultipartUploadCommand({ Bucket: target.bucket, Key: upload.Key, UploadId: upload.UploadId }));
      }
    } catch (err) {
      throw bucketFailed(err, `removing ${location(under)}`, redact);
    }
  }

  async function link(key: string, { expiresAt, filename }: { expiresAt: number; filename: string }): Promise<string> {
    assertSafeKey(key);
    const [{ aws, client }, { getSignedUrl }] = await Promise.all([connect(), loadPresigner()]);
    const command = new aws.GetObjectCommand({ Bucket: target.bucket, Key: underPrefix(target.prefix, key), ResponseContentDisposition: `attachment; filename="${filename}"` });
    // One clock reading for both the signing date and the lifetime, so the link ends exactly at expiresAt even across a second's turn.
    const signedAt = Math.floor(Date.now() / 1000);
    return getSignedUrl(client, command, { expiresIn: Math.max(1, expiresAt - signedAt), signingDate: new Date(signedAt * 1000) });
  }

  return {
    put,
    removeUnder,
    link,
    async probe() {
      const key = `.sluice-probe-${randomUUID()}`;
      const fullKey = underPrefix(target.prefix, key);
      const probe = async function* () {
        yield Buffer.from('Sluice destination probe: removed once written\n');
      };
      await put(key, probe(), { contentType: 'text/plain', signal: new AbortController().signal });
      try {
        await remove(fullKey);
      } catch (err) {
        throw bucketFailed(err, `the probe was written but could not be removed (${location(fullKey)}); runs cancelled after their last part need to remove objects`, redact);
      }
    },
    close() {
      client?.destroy();
    },
  };
}
