import { session } from './session.ts';

/** An answer other than 2xx, with the spec's `{error, code, request_id}` when the body has them. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null,
    readonly requestId: string | null,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export interface CallOptions {
  /** Send the secret being tried instead of the signed-in one (sign-in). */
  key?: string;
  /** Management API calls go to `/w/<workspace>/api/v1/...` outside `default`. */
  workspace?: boolean;
  headers?: Record<string, string>;
  /** A body sent as it is, with this content type (a YAML file), instead of JSON. */
  contentType?: string;
}

/** A Management API path in the workspace acted in. */
export function apiPath(path: string): string {
  const workspace = session.workspace();
  return workspace === 'default' || !path.startsWith('/api/v1/') ? path : `/w/${encodeURIComponent(workspace)}${path}`;
}

/** fetch with the signed-in secret in `X-API-Key`; throws ApiError on a non-2xx answer. */
export async function request(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key ?? session.key();
  if (key) headers['x-api-key'] = key;
  let payload: BodyInit | undefined;
  if (body !== undefined && options.contentType) {
    headers['content-type'] = options.contentType;
    payload = String(body);
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const url = options.workspace === false ? path : apiPath(path);
  const res = await fetch(url, { method, headers, body: payload, cache: 'no-store' });
  if (!res.ok) throw await toError(res);
  return res;
}

async function toError(res: Response): Promise<ApiError> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: the text is the message.
  }
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const message = typeof b.error === 'string' ? b.error : text || res.statusText;
  const requestId = typeof b.request_id === 'string' ? b.request_id : res.headers.get('x-request-id');
  return new ApiError(res.status, message, typeof b.code === 'string' ? b.code : null, requestId, body);
}

/** A JSON call: the parsed body. */
export async function api<T = any>(method: string, path: string, body?: unknown, options?: CallOptions): Promise<T> {
  const res = await request(method, path, body, options);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

export const get = <T = any>(path: string) => api<T>('GET', path);

/** Query-string from the non-empty entries. */
export function qs(params: Record<string, string | number | undefined | null>): string {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== '');
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}`;
}

export const enc = encodeURIComponent;

/** The `If-Match` an edit sends with the ETag read before it: a change made meanwhile is then a 412, not overwritten. */
export const ifMatch = (etag: string | null): CallOptions => ({ headers: etag ? { 'if-match': etag } : {} });
