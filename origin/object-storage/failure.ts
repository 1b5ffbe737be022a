import type { Redactor } from '../drivers/redact.ts';
import { SluiceError } from '../errors.ts';

/**
 * A store that refused a write or could not be reached, as the client sees
 * it: 502 `connection_failed`, with what was being done and the store's own
 * words (an S3 error code and message, a socket error) in `detail`, the
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
