import { expect } from 'vitest';
import { unique } from '../api/connections-fixtures.ts';
import type { Origin } from '../harness/origin.ts';

/**
 * Shared pieces of the saved-query tests: creating queries over the
 * Management API, calling `/q/<name>` with GET or POST, and waiting for runs
 * to reach the history (it is written in batches, about every 250 ms).
 */

export interface QResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

export interface QueryFields {
  sql: string;
  parameters?: Record<string, unknown>;
  connection_name?: string | null;
  publish?: boolean;
  [field: string]: unknown;
}

/** Creates a saved query under a unique name (published unless `publish: false`) and returns the name. */
export async function createQuery(origin: Origin, fields: QueryFields, prefix = 'q'): Promise<string> {
  const name = unique(prefix);
  const res = await origin.call('POST', '/api/v1/queries', { connection_name: 'examples', publish: true, ...fields, name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return name;
}

/** Adds a version (a draft unless `publish: true`) and returns its number. */
export async function addVersion(origin: Origin, name: string, fields: Partial<QueryFields>): Promise<number> {
  const res = await origin.call('POST', `/api/v1/queries/${encodeURIComponent(name)}/versions`, fields);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const versions: Array<{ version: number }> = res.body.versions;
  return Math.max(...versions.map((v) => v.version));
}

async function answer(res: Response): Promise<QResponse> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{12}$/);
  return { status: res.status, headers: res.headers, text, body };
}

/** `GET /q/<name>?<query>`; a query given as a string is sent as is (for repeated arguments). */
export async function getQ(origin: Origin, name: string, query: Record<string, string | number | boolean> | string = {}, headers: Record<string, string> = {}): Promise<QResponse> {
  const search = typeof query === 'string' ? query : new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return answer(await origin.fetch(`/q/${encodeURIComponent(name)}${search ? `?${search}` : ''}`, { headers }));
}

/** `POST /q/<name>` with a JSON body (a string is sent as is). */
export async function postQ(origin: Origin, name: string, body: unknown, query = '', headers: Record<string, string> = {}): Promise<QResponse> {
  return answer(
    await origin.fetch(`/q/${encodeURIComponent(name)}${query ? `?${query}` : ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

export interface RunItem {
  id: number;
  time: string;
  query: string | null;
  version: number | null;
  connection: string;
  status: 'success' | 'error';
  rows: number;
  duration_ms: number;
  serialization_ms: number | null;
  request_id: string | null;
  key_name: string | null;
  transport: string;
  format: string | null;
  error: string | null;
}

export async function history(origin: Origin, query: Record<string, string | number> = {}, headers: Record<string, string> = {}): Promise<{ items: RunItem[]; next_cursor: string | null }> {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const res = await origin.call('GET', `/api/v1/history${search ? `?${search}` : ''}`, undefined, headers);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the history until the run of `requestId` is listed (runs are written within about 250 ms). */
export async function waitForRun(origin: Origin, requestId: string, headers: Record<string, string> = {}): Promise<RunItem> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const found = (await history(origin, { limit: 1000 }, headers)).items.find((item) => item.request_id === requestId);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`run ${requestId} never reached the history`);
    await sleep(50);
  }
}

/** Waits long enough for any queued run to be written, then says whether `requestId` was recorded. */
export async function wasRecorded(origin: Origin, requestId: string): Promise<boolean> {
  await sleep(700);
  return (await history(origin, { limit: 1000 })).items.some((item) => item.request_id === requestId);
}

export const requestIdOf = (res: QResponse) => res.headers.get('x-request-id')!;
