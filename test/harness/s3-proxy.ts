import { createHash } from 'node:crypto';
import { Agent, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type Keys, type Payload, verifySignature } from './s3-signature.ts';
import { bucketExists, pendingUploads, removeUpload, uploadExists } from './s3-uploads.ts';
import { errorXml, listMultipartUploadsXml, requestId } from './s3-xml.ts';

/**
 * The HTTP front of the test S3 server (s3.ts): checks each request's SigV4
 * signature (s3-signature.ts), serves the multipart calls s3rver lacks
 * (s3-uploads.ts), and streams everything else to s3rver both ways. A body
 * with a hex `x-amz-content-sha256` is hashed on the way; its last chunk is
 * held back until the hash matches, so s3rver never completes a request
 * whose body was not the one signed. Can be made to cut requests
 * (`failAfterBytes`) or to stop listening (`pause`).
 */

export type FailureMode = 'reset' | 500;

export interface S3Proxy {
  port: number;
  /** From now, once more than `bytes` request-body bytes have arrived, the request under way and every later one fail (`null` heals). */
  failAfterBytes(bytes: number | null, mode?: FailureMode): void;
  /** Stops listening and cuts every open connection: the store is unreachable until `resume()`. */
  pause(): Promise<void>;
  /** Listens again, on the same port. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

export interface S3ProxyOptions {
  upstreamPort: number;
  keys: Keys;
  /** s3rver's data directory. */
  root: string;
  /** Default: a free one. */
  port?: number;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'expect', 'te', 'upgrade', 'proxy-connection']);
const endToEnd = (headers: IncomingHttpHeaders) => Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));

function sendError(req: IncomingMessage, res: ServerResponse, status: number, code: string, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const id = requestId();
  res.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': id });
  res.end(req.method === 'HEAD' ? undefined : errorXml(code, message, id));
}

/** Reads and discards the body, then answers: a client still sending is never cut off before it reads the answer. */
function answerAfterBody(req: IncomingMessage, res: ServerResponse, answer: () => void | Promise<void>): void {
  req.on('end', () => {
    Promise.resolve()
      .then(answer)
      .catch((err: Error) => sendError(req, res, 500, 'InternalError', err.message));
  });
  req.resume();
}

export async function startS3Proxy(options: S3ProxyOptions): Promise<S3Proxy> {
  const { keys, root } = options;
  const agent = new Agent({ keepAlive: true });
  const sockets = new Set<Socket>();
  let failure: { limit: number; received: number; mode: FailureMode } | undefined;
  const tripped = () => failure !== undefined && failure.received > failure.limit;

  function fail(req: IncomingMessage, res: ServerResponse, mode: FailureMode): void {
    if (mode === 'reset') req.socket.destroy();
    else {
      res.setHeader('connection', 'close');
      sendError(req, res, 500, 'InternalError', 'We encountered an internal error. Please try again.');
      req.resume();
    }
  }

  function forward(req: IncomingMessage, res: ServerResponse, payload: Payload): void {
    const expected = 'sha256' in payload ? payload.sha256 : undefined;
    const hash = expected === undefined ? undefined : createHash('sha256');
    let held: Buffer | undefined;
    let cut = false;
    const upstream = request({ host: '127.0.0.1', port: options.upstreamPort, method: req.method, path: req.url, headers: endToEnd(req.headers), agent });
    const stopUpstream = () => {
      cut = true;
      upstream.destroy();
    };
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      if (!cut) sendError(req, res, 500, 'InternalError', `the store behind the proxy failed: ${err.message}`);
    });
    upstream.on('drain', () => req.resume());
    res.on('close', () => {
      if (!res.writableFinished) stopUpstream();
    });

    const send = (chunk: Buffer) => {
      if (!upstream.write(chunk)) req.pause();
    };
    req.on('data', (chunk: Buffer) => {
      if (cut) return;
      if (failure) {
        failure.received += chunk.length;
        if (tripped()) {
          stopUpstream();
          return fail(req, res, failure.mode);
        }
      }
      if (!hash) return send(chunk);
      hash.update(chunk);
      if (held) send(held);
      held = chunk;
    });
    req.on('end', () => {
      if (cut) return;
      if (hash && hash.digest('hex') !== expected) {
        stopUpstream();
        return sendError(req, res, 400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.");
      }
      upstream.end(held);
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (tripped()) return fail(req, res, failure!.mode);
    const verdict = verifySignature({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers }, keys);
    if (!verdict.ok) return answerAfterBody(req, res, () => sendError(req, res, verdict.status, verdict.code, verdict.message));

    const { bucket, key, query } = target(req.url ?? '/');
    const hasKey = key !== '';
    const uploadId = query.get('uploadId') ?? undefined;
    if (req.method === 'GET' && !hasKey && query.has('uploads')) {
      return answerAfterBody(req, res, async () => {
        if (!(await bucketExists(root, bucket))) return sendError(req, res, 404, 'NoSuchBucket', 'The specified bucket does not exist');
        const prefix = query.get('prefix') ?? '';
        res.writeHead(200, { 'content-type': 'application/xml', 'x-amz-request-id': requestId() });
        res.end(listMultipartUploadsXml(bucket, prefix, await pendingUploads(root, bucket, prefix)));
      });
    }
    if (hasKey && uploadId !== undefined && !(await uploadExists(root, bucket, uploadId))) {
      const message = 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.';
      return answerAfterBody(req, res, () => sendError(req, res, 404, 'NoSuchUpload', message));
    }
    if (req.method === 'DELETE' && hasKey && uploadId !== undefined) {
      return answerAfterBody(req, res, async () => {
        await removeUpload(root, bucket, uploadId);
        res.writeHead(204, { 'x-amz-request-id': requestId() });
        res.end();
      });
    }
    forward(req, res, verdict.payload);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => sendError(req, res, 500, 'InternalError', err.message));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  const port = await listen(options.port ?? 0);

  return {
    port,
    failAfterBytes(bytes, mode = 'reset') {
      failure = bytes === null ? undefined : { limit: bytes, received: 0, mode };
    },
    pause: stopListening,
    resume: async () => {
      await listen(port);
    },
    async close() {
      if (server.listening) await stopListening();
      agent.destroy();
    },
  };
}

/** Bucket, key and query of a path-style request target (`/bucket/key?query`). */
function target(url: string): { bucket: string; key: string; query: URLSearchParams } {
  const at = url.indexOf('?');
  const [, bucket = '', ...key] = (at === -1 ? url : url.slice(0, at)).split('/').map(decodeURIComponent);
  return { bucket, key: key.join('/'), query: new URLSearchParams(at === -1 ? '' : url.slice(at + 1)) };
}
