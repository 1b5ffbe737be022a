import { expect } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { unique } from '../harness/unique.ts';

/**
 * Shared pieces of the saved-query tests: creating queries over the
 * Management API, calling `/q/<name>` with GET or POST, and waiting for runs
 * to reach the history (it is written in batches; a history read writes
 * what is queued first).
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

/** Polls the history until the run of `requestId` is listed. */
export async function waitForRun(origin: Origin, requestId: string, headers: Record<string, string> = {}): Promise<RunItem> {
  // A history read writes the queue first: the run is listed at once unless it was never queued.
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = (await history(origin, { limit: 1000 }, headers)).items.find((item) => item.request_id === requestId);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`run ${requestId} never reached the history`);
    await sleep(50);
  }
}

/**
 * Which of `requestIds` (responses already read to their end) have a run in
 * the history. A run is queued as its response ends; a marker run started
 * after those responses is queued after them, so once the marker is listed
 * (a history read writes the queue first) any of theirs would be too.
 */
export async function recordedOf(origin: Origin, requestIds: string[], headers: Record<string, string> = {}): Promise<string[]> {
  const marker = await origin.call('POST', '/execute_sql', { sql: "SELECT 'marker' AS marker", connection_name: 'examples' }, headers);
  expect(marker.status, JSON.stringify(marker.body)).toBe(200);
  await waitForRun(origin, marker.headers.get('x-request-id')!, headers);
  const recorded = new Set((await history(origin, { limit: 1000 }, headers)).items.map((item) => item.request_id));
  return requestIds.filter((id) => recorded.has(id));
}

/** Whether the run of `requestId` (a response already read to its end) was recorded: see `recordedOf`. */
export async function wasRecorded(origin: Origin, requestId: string): Promise<boolean> {
  return (await recordedOf(origin, [requestId])).length > 0;
}

export const requestIdOf = (res: QResponse) => res.headers.get('x-request-id')!;
