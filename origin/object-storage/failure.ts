import type { Redactor } from '../drivers/redact.ts';
import { SluiceError } from '../errors.ts';
import { deniedIn } from '../network/endpoint-deny.ts';

/** What a bucket store that gave no S3 answer is told, whatever happened on the network. */
export const UNREACHABLE_DETAIL = 'could not reach the endpoint, or it did not answer as an S3-compatible store';

/**
 * S3 error codes worth showing: a reachable store's own answer about the
 * credential, the bucket or the request, which the user can act on. Anything
 * else (a refused, reset or timed-out connection, a server that is not S3)
 * gets UNREACHABLE_DETAIL, so a destination test cannot tell a closed port
 * from an open one or from another service (docs/reference/destinations.md).
 */
const S3_ERROR_CODES = new Set([
  'AccessDenied',
  'AccountProblem',
  'AllAccessDisabled',
  'AuthorizationHeaderMalformed',
  'AuthorizationQueryParametersError',
  'BadDigest',
  'EntityTooLarge',
  'EntityTooSmall',
  'ExpiredToken',
  'InternalError',
  'InvalidAccessKeyId',
  'InvalidArgument',
  'InvalidBucketName',
  'InvalidBucketState',
  'InvalidDigest',
  'InvalidObjectState',
  'InvalidPart',
  'InvalidPartOrder',
  'InvalidRequest',
  'InvalidStorageClass',
  'InvalidToken',
  'KeyTooLongError',
  'MalformedXML',
  'MissingContentLength',
  'NoSuchBucket',
  'NoSuchKey',
  'NoSuchUpload',
  'NotImplemented',
  'OperationAborted',
  'PermanentRedirect',
  'PreconditionFailed',
  'QuotaExceeded',
  'RequestTimeTooSkewed',
  'ServiceUnavailable',
  'SignatureDoesNotMatch',
  'SlowDown',
  'TemporaryRedirect',
  'XAmzContentSHA256Mismatch',
]);

/** An S3 error answered by the store: the SDK names the error by its `<Code>` and records the HTTP status. */
function isS3Answer(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return typeof status === 'number' && S3_ERROR_CODES.has(error.name);
}

/**
 * `storeFailed` for a bucket store: an endpoint SLUICE_ENDPOINT_DENY refused
 * is 400 `endpoint_denied`; an S3 answer keeps its code and message; any
 * other failure gets the one generic detail.
 */
export function bucketFailed(error: unknown, doing: string, redact: Redactor): SluiceError {
  const denied = deniedIn(error);
  if (denied) return denied;
  if (error instanceof SluiceError) return error;
  if (!isS3Answer(error)) return new SluiceError('connection_failed', 'Could not write to the destination', { detail: redact(`${doing}: ${UNREACHABLE_DETAIL}`) });
  return storeFailed(error, doing, redact);
}

/**
 * A store that refused a write or could not be reached, as the client sees
 * it: 502 `connection_failed`, with what was being done and the store's own
 * words (an S3 error code and message, a file system error) in `detail`, the
 * secret redacted. Our own errors (a refused key) pass through.
 */
export function storeFailed(error: unknown, doing: string, redact: Redactor): SluiceError {
  if (error instanceof SluiceError) return error;
  return new SluiceError('connection_failed', 'Could not write to the destination', { detail: redact(`${doing}: ${describe(error)}`) });
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, $metadata } = error as Error & { code?: unknown; $metadata?: { httpStatusCode?: number } };
  const status = $metadata?.httpStatusCode;
  // An S3 error's name is its code (SignatureDoesNotMatch, NoSuchBucket); a socket error has a code (ECONNREFUSED).
  const label = typeof code === 'string' ? code : error.name !== 'Error' ? error.name : null;
  const message = error.message || (error instanceof AggregateError ? error.errors.map(describe).join('; ') : '');
  const text = label === null || message.includes(label) ? message || error.name : message ? `${label}: ${message}` : label;
  return status === undefined ? text : `${text} (HTTP ${status})`;
}
