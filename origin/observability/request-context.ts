import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../http/context.ts';

/** What a log line or a metric needs to know about the request it belongs to. */
export interface RequestScope {
  request_id: string;
  /** `admin`, a key's or administrator's name, or `-`. */
  key: string;
}

interface RequestState {
  c: Context<AppEnv>;
  /** Set by a paged run once its page is serialised; the access line reports it. */
  serializationMs: number | null;
}

const storage = new AsyncLocalStorage<RequestState>();

/**
 * Makes the request visible to everything that runs on its behalf, so any
 * log line written during it carries its id and caller without passing a
 * logger down every call. Work that outlives the handler (a stream's
 * download) takes a `requestScope()` snapshot while still inside it.
 */
export const requestContext = createMiddleware<AppEnv>((c, next) => storage.run({ c, serializationMs: null }, next));

/** The current request's id and caller; `-` for both outside any request (startup, timers). */
export function requestScope(): RequestScope {
  const state = storage.getStore();
  if (!state) return { request_id: '-', key: '-' };
  return { request_id: state.c.get('requestId') ?? '-', key: state.c.get('caller')?.name ?? '-' };
}

/** Notes the page's serialisation time for the access line. */
export function noteSerialization(ms: number): void {
  const state = storage.getStore();
  if (state) state.serializationMs = ms;
}

/** The serialisation time noted for this request, or null (streams, errors, non-query routes). */
export function serializationOf(): number | null {
  return storage.getStore()?.serializationMs ?? null;
}
