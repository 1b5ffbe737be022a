import { SluiceError } from '../../errors.ts';

const MAX_MESSAGE = 300;

/**
 * Whether a failed run belongs in history: a 5xx is a run that failed (the
 * database refused it, timed out, could not be reached, the client went
 * away). A 4xx is the request's own fault and nothing ran (bad parameters or
 * options, several statements, an unknown or inactive connection, a write
 * refused): it is not a run.
 */
export function isRecordedFailure(err: unknown): boolean {
  return !(err instanceof SluiceError && err.status < 500);
}

/**
 * The short message history keeps for a failed run: the error as the client
 * saw it plus the first line of the database's own `detail` (already stripped
 * of credentials by the drivers). Anything unexpected is only "Internal server error", as the
 * client was told: its text may carry a connection string.
 */
export function failureMessage(err: unknown, signal?: AbortSignal): string {
  if (signal?.aborted) return 'client went away';
  if (!(err instanceof SluiceError)) return 'Internal server error';
  // The first line of the database's message says what went wrong; the rest points into the SQL.
  const detail = typeof err.extras.detail === 'string' ? err.extras.detail.split('\n')[0].trim() : '';
  const text = detail !== '' && detail !== err.message ? `${err.message}: ${detail}` : err.message;
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text;
}

/** Milliseconds as history stores them: to the hundredth. */
export const roundMs = (ms: number) => Math.round(ms * 100) / 100;
