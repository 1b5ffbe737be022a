import type { Context } from 'hono';
import type { RawRowOptions } from '../services/run/options.ts';
import { viewResult } from '../services/results/read.ts';
import { resultRunner } from '../services/results/runner.ts';
import type { AppEnv } from './context.ts';

/** Seconds a result is waited for before answering, unless asked. */
export const DEFAULT_WAIT_SECONDS = 10;
const MAX_WAIT_SECONDS = 60;

/**
 * The answer to a result just started (`POST /results`, or a request with
 * `Prefer: respond-async`): 200 with the result once it finished within
 * `waitSeconds`, else 202 with it and `Location: /results/{id}`.
 */
export async function respondResult(c: Context<AppEnv>, id: string, waitSeconds: number, headers: Record<string, string> = {}): Promise<Response> {
  const deps = c.get('deps');
  const finished = await resultRunner(deps).settled(id, waitSeconds * 1000);
  const view = await viewResult(deps, c.get('caller'), id);
  if (finished && view.state !== 'running' && view.state !== 'queued') return c.json(view, 200, headers);
  return c.json(view, 202, { ...headers, Location: `/results/${id}` });
}

/** Where the request reached this origin: a result's chunk links point there. */
export const linkBaseOf = (c: Context<AppEnv>): string => new URL(c.req.url).origin;

/**
 * `Prefer: respond-async` (RFC 7240), with its `wait=N` (seconds, at most
 * 60; else the default): the request is answered as a stored result.
 * Null when the header does not ask for it.
 */
export function asyncPreference(c: Context<AppEnv>): { wait: number } | null {
  const header = c.req.header('prefer');
  if (!header) return null;
  // `respond-async, wait=N` as RFC 7240 writes it; `respond-async; wait=N` is read alike.
  const preferences = header.split(/[,;]/).map((part) => part.trim().toLowerCase());
  if (!preferences.includes('respond-async')) return null;
  const wait = preferences.map((part) => /^wait\s*=\s*(\d{1,6})$/.exec(part)).find((match) => match !== null);
  return { wait: wait ? Math.min(Number(wait[1]), MAX_WAIT_SECONDS) : DEFAULT_WAIT_SECONDS };
}

/** The query-string options, asking for a whole-result stream when the request prefers an asynchronous answer (so paging with it is refused as with `stream=true`). */
export function streamIfAsync<T extends RawRowOptions>(c: Context<AppEnv>, query: T): T {
  return asyncPreference(c) ? { ...query, stream: 'true' } : query;
}
