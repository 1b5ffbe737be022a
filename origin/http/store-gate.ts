import type { MiddlewareHandler } from 'hono';
import { SluiceError } from '../errors.ts';
import { STORE_RETRY_AFTER_S } from '../store/availability.ts';
import type { AppEnv } from './context.ts';

/** 503 `store_unavailable`, with `Retry-After`: the PostgreSQL store does not answer. */
export const storeUnavailable = () =>
  new SluiceError('store_unavailable', 'The metadata store cannot be reached; try again shortly', { retry_after: STORE_RETRY_AFTER_S });

/**
 * While the store is known to be down (store/availability.ts), every request
 * below this point answers 503 at once, before any key is looked up: nothing
 * waits on a store that is not there, and nothing is logged per request.
 */
export const storeGate: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!c.get('deps').storeAvailability.reachable) throw storeUnavailable();
  await next();
};
