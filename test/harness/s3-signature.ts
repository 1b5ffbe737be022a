import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * AWS Signature Version 4 as S3 checks it, for the test S3 server's proxy
 * (s3-proxy.ts): the Authorization header (`AWS4-HMAC-SHA256`) or presigned
 * query parameters (`X-Amz-Algorithm`). Only what arrives before the body is
 * checked here; a hex `x-amz-content-sha256` is returned for the proxy to
 * compare with the body as it streams. For `STREAMING-*` payloads the seed
 * signature is checked, not each chunk's.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-authenticating-requests.html
 */

export interface SignedRequest {
  method: string;
  /** The request target as received: path and query, still percent-encoded. */
  url: string;
  headers: IncomingHttpHeaders;
}

/** What the body must hash to: a hex SHA-256, or nothing to check. */
export type Payload = { sha256: string } | { unchecked: 'UNSIGNED-PAYLOAD' | 'STREAMING' };

export type Verdict =
  | { ok: true; accessKeyId: string; payload: Payload }
  | { ok: false; status: number; code: string; message: string };

export interface Keys {
  region: string;
  /** Access key id to secret access key. */
  secrets: ReadonlyMap<string, string>;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';
/** S3 refuses a header-signed request more than 15 minutes from its clock. */
const MAX_SKEW_MS = 15 * 60_000;

const refuse = (status: number, code: string, message: string): Verdict => ({ ok: false, status, code, message });
const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding, as SigV4 wants: everything but unreserved characters. */
const encode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Decodes once; a malformed escape stays as written (S3 would refuse the request; the signature check then fails). */
function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** S3 encodes each path segment once (no double encoding, no dot-segment normalisation). */
const canonicalUri = (rawPath: string) => rawPath.split('/').map((segment) => encode(decode(segment))).join('/');

function canonicalQuery(rawQuery: string, without?: string): string {
  const pairs = rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      const [name, value] = at === -1 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
      return [encode(decode(name)), encode(decode(value))] as const;
    })
    .filter(([name]) => name !== without);
  pairs.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return pairs.map(([name, value]) => `${name}=${value}`).join('&');
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value.join(',') : value).trim().replace(/\s+/g, ' ');
}

/** `AKID/20240101/us-east-1/s3/aws4_request`, checked against the server's keys and region. */
function parseCredential(credential: string, keys: Keys): Verdict | { accessKeyId: string; secret: string; date: string; scope: string } {
  const [accessKeyId, date, region, service, terminator, ...rest] = credential.split('/');
  if (rest.length > 0 || !/^\d{8}$/.test(date ?? '') || service !== 's3' || terminator !== 'aws4_request') {
    return refuse(400, 'AuthorizationHeaderMalformed', `The credential is malformed: ${credential}`);
  }
  const secret = keys.secrets.get(accessKeyId);
  if (secret === undefined) return refuse(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  if (region !== keys.region) {
    return refuse(400, 'AuthorizationHeaderMalformed', `The authorization header is malformed; the region '${region}' is wrong; expecting '${keys.region}'`);
  }
  return { accessKeyId, secret, date, scope: `${date}/${region}/s3/aws4_request` };
}

/** `20240101T120000Z` to epoch milliseconds, or NaN. */
export function amzDateMs(amzDate: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : Number.NaN;
}

interface Signing {
  request: SignedRequest;
  secret: string;
  scope: string;
  amzDate: string;
  signedHeaders: string;
  payloadHash: string;
  withoutParam?: string;
}

function expectedSignature(s: Signing): string | Verdict {
  const at = s.request.url.indexOf('?');
  const [rawPath, rawQuery] = at === -1 ? [s.request.url, ''] : [s.request.url.slice(0, at), s.request.url.slice(at + 1)];
  const names = s.signedHeaders.split(';');
  if (!names.includes('host')) return refuse(400, 'AuthorizationHeaderMalformed', 'The host header must be signed.');
  const canonicalHeaders = names.map((name) => `${name}:${headerValue(s.request.headers, name) ?? ''}\n`).join('');
  const canonicalRequest = [s.request.method, canonicalUri(rawPath), canonicalQuery(rawQuery, s.withoutParam), canonicalHeaders, s.signedHeaders, s.payloadHash].join('\n');
  const stringToSign = [ALGORITHM, s.amzDate, s.scope, sha256(canonicalRequest)].join('\n');
  const key = s.scope.split('/').reduce<Buffer | string>((k, part) => hmac(k, part), `AWS4${s.secret}`);
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}

function compare(expected: string | Verdict, given: string): Verdict | undefined {
  if (typeof expected !== 'string') return expected;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  if (a.length === b.length && timingSafeEqual(a, b)) return undefined;
  return refuse(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.');
}

function payloadOf(hash: string): Payload | undefined {
  if (hash === 'UNSIGNED-PAYLOAD') return { unchecked: 'UNSIGNED-PAYLOAD' };
  if (hash.startsWith('STREAMING-')) return { unchecked: 'STREAMING' };
  if (/^[0-9a-f]{64}$/.test(hash)) return { sha256: hash };
  return undefined;
}

function verifyHeader(request: SignedRequest, authorization: string, keys: Keys, now: number): Verdict {
  const fields = new Map<string, string>();
  for (const part of authorization.slice(ALGORITHM.length).split(',')) {
    const at = part.indexOf('=');
    if (at > 0) fields.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  const [credential, signedHeaders, signature] = ['Credential', 'SignedHeaders', 'Signature'].map((name) => fields.get(name));
  if (!credential || !signedHeaders || !signature) {
    return refuse(400, 'AuthorizationHeaderMalformed', 'The authorization header requires Credential, SignedHeaders and Signature.');
  }
  const scope = parseCredential(credential, keys);
  if ('ok' in scope) return scope;
  const payloadHash = headerValue(request.headers, 'x-amz-content-sha256');
  if (!payloadHash) return refuse(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
  const payload = payloadOf(payloadHash);
  if (!payload) return refuse(400, 'InvalidArgument', 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-*, or a valid sha256 value.');
  const amzDate = headerValue(request.headers, 'x-amz-date') ?? '';
  const time = amzDateMs(amzDate);
  if (Number.isNaN(time) || !amzDate.startsWith(scope.date)) {
    return refuse(403, 'AccessDenied', 'AWS authentication requires a valid x-amz-date header matching the credential date');
  }
  if (Math.abs(now - time) > MAX_SKEW_MS) {
    return refuse(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
  }
  const refused = compare(expectedSignature({ request, ...scope, amzDate, signedHeaders, payloadHash }), signature);
  return refused ?? { ok: true, accessKeyId: scope.accessKeyId, payload };
}

function verifyQuery(request: SignedRequest, query: URLSearchParams, keys: Keys, now: number): Verdict {
  if (query.get('X-Amz-Algorithm') !== ALGORITHM) return refuse(400, 'AuthorizationQueryParametersError', `X-Amz-Algorithm only supports "${ALGORITHM}"`);
  const [credential, amzDate, expires, signedHeaders, signature] = ['X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Expires', 'X-Amz-SignedHeaders', 'X-Amz-Signature'].map((name) =>
    query.get(name),
  );
  if (!credential || !amzDate || !expires || !signedHeaders || !signature) {
    return refuse(400, 'AuthorizationQueryParametersError', 'Query-string authentication version 4 requires the X-Amz-Credential, X-Amz-Date, X-Amz-Expires, X-Amz-SignedHeaders and X-Amz-Signature parameters.');
  }
  const scope = parseCredential(credential, keys);
  if ('ok' in scope) return scope;
  const time = amzDateMs(amzDate);
  if (Number.isNaN(time) || !amzDate.startsWith(scope.date) || !/^\d+$/.test(expires)) {
    return refuse(400, 'AuthorizationQueryParametersError', 'X-Amz-Date or X-Amz-Expires is malformed.');
  }
  if (now > time + Number(expires) * 1000) return refuse(403, 'AccessDenied', 'Request has expired');
  // A presigned URL never signs its body.
  const payloadHash = 'UNSIGNED-PAYLOAD';
  const refused = compare(expectedSignature({ request, ...scope, amzDate, signedHeaders, payloadHash, withoutParam: 'X-Amz-Signature' }), signature);
  return refused ?? { ok: true, accessKeyId: scope.accessKeyId, payload: { unchecked: payloadHash } };
}

/** Checks a request's SigV4 signature with the server's keys; an unsigned request is refused (every bucket is private). */
export function verifySignature(request: SignedRequest, keys: Keys, now = Date.now()): Verdict {
  const authorization = headerValue(request.headers, 'authorization');
  const query = new URLSearchParams(request.url.split('?')[1] ?? '');
  const byQuery = query.has('X-Amz-Algorithm');
  if (authorization && byQuery) return refuse(400, 'InvalidArgument', 'Only one auth mechanism allowed.');
  if (authorization?.startsWith(`${ALGORITHM} `)) return verifyHeader(request, authorization, keys, now);
  if (authorization) return refuse(400, 'InvalidArgument', 'Unsupported Authorization Type: only AWS Signature Version 4 is accepted.');
  if (byQuery) return verifyQuery(request, query, keys, now);
  return refuse(403, 'AccessDenied', 'Access Denied');
}
