import { SluiceError } from '../errors.ts';
import { redactedMessage, statementDetail, type Redactor } from './redact.ts';

/**
 * The one place driver failures become `SluiceError`s. Every `detail` is the
 * database's own message with credentials redacted (redact.ts).
 */

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'SESSION_LOST',
  'SQLITE_CANTOPEN',
]);

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True when the error says the server could not be reached (as opposed to refusing a statement). */
export function isUnreachable(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && UNREACHABLE_CODES.has(code);
}

/**
 * A statement failed: the database could not be reached on the way (the
 * driver's message, the password masked), or it rejected the statement (its
 * message as `statementDetail` shows it).
 */
export function queryFailed(error: unknown, redactor: Redactor): SluiceError {
  if (error instanceof SluiceError) return error;
  if (isUnreachable(error)) {
    return new SluiceError('query_failed', 'The database could not be reached', { detail: redactedMessage(error, redactor) });
  }
  return new SluiceError('query_failed', 'The database rejected the query', { detail: statementDetail(error) });
}

/** A session could not be opened for a statement: whatever the cause (refused, bad password), it never ran. */
export function unreachable(error: unknown, redactor: Redactor): SluiceError {
  if (error instanceof SluiceError) return error;
  return new SluiceError('query_failed', 'The database could not be reached', { detail: redactedMessage(error, redactor) });
}

export function connectionFailed(error: unknown, redactor: Redactor): SluiceError {
  if (error instanceof SluiceError && error.code === 'connection_failed') return error;
  const detail =
    error instanceof SluiceError ? String(error.extras.detail ?? error.message) : redactedMessage(error, redactor);
  return new SluiceError('connection_failed', 'Could not connect to the database', { detail });
}

export function timedOut(timeoutMs: number): SluiceError {
  return new SluiceError('timeout', 'Query exceeded the time limit and was cancelled', { timeout: timeoutMs / 1000 });
}

export function cancelled(): SluiceError {
  return new SluiceError('query_failed', 'The query was cancelled because the client went away', {
    detail: 'cancelled',
  });
}

/** A failure that is ours to report as is (no database message to carry). */
export function sessionLost(what: string): Error & { code: string } {
  return Object.assign(new Error(what), { code: 'SESSION_LOST' });
}
