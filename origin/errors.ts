import { ERROR_STATUS, type ErrorCode } from '../shared/errors.ts';

/** Extra fields the spec adds to an error body: `detail`, `timeout`, `errors`, `contents`... */
export type ErrorExtras = Record<string, unknown>;

/**
 * The one error class of the origin. Thrown anywhere below a route; the single
 * handler in `app.ts` shapes it for the route family (management or query).
 */
export class SluiceError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extras: ErrorExtras = {},
  ) {
    super(message);
    this.name = 'SluiceError';
    this.status = ERROR_STATUS[code];
  }
}

export const badRequest = (message: string, extras?: ErrorExtras) =>
  new SluiceError('invalid_request', message, extras);

export const notFound = (code: ErrorCode, message: string) => new SluiceError(code, message);
