/**
 * How the origin and the edge Worker trust each other: HMAC-SHA-256 under
 * the shared `SLUICE_EDGE_SECRET` (Web Crypto only, so both sides run this
 * very code). Two messages are signed, each with its own purpose label so a
 * signature of one can never pass for the other:
 *
 * - replica pushes, origin -> edge (`POST /__sluice/edge/replica`): the
 *   body is signed; it carries a timestamp and a sequence number the edge
 *   only ever lets grow (docs/decisions/0012-edge-replica-consistency.md);
 * - caller assertions, edge -> origin (`X-Sluice-Edge-Assertion` on every
 *   forwarded request): who the edge saw calling, bound to the method and
 *   target of that request and to a timestamp.
 */

export const REPLICA_PATH = '/__sluice/edge/replica';
export const SIGNATURE_HEADER = 'X-Sluice-Signature';
export const ASSERTION_HEADER = 'X-Sluice-Edge-Assertion';
/** Timestamps further than this from the receiver's clock are refused (clock skew plus transit). */
export const MAX_SKEW_MS = 30_000;
/** The secret must carry at least 256 bits when written as text. */
export const MIN_SECRET_LENGTH = 32;

type Purpose = 'replica' | 'assertion';

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    keys.set(secret, key);
  }
  return key;
}

const toHex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

function fromHex(hex: string): Uint8Array<ArrayBuffer> | null {
  if (!/^(?:[0-9a-f]{2})+$/.test(hex)) return null;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** HMAC-SHA-256 (hex) of `text` for one purpose. */
export async function sign(secret: string, purpose: Purpose, text: string): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', await hmacKey(secret), encoder.encode(`sluice-edge:${purpose}\n${text}`));
  return toHex(new Uint8Array(mac));
}

/** Whether `signature` is the HMAC of `text` for `purpose`; Web Crypto compares in constant time. */
export async function verify(secret: string, purpose: Purpose, text: string, signature: string): Promise<boolean> {
  const mac = fromHex(signature.trim().toLowerCase());
  if (!mac) return false;
  return crypto.subtle.verify('HMAC', await hmacKey(secret), mac, encoder.encode(`sluice-edge:${purpose}\n${text}`));
}

export const fresh = (ts: unknown, now: number): boolean => typeof ts === 'number' && Number.isFinite(ts) && Math.abs(now - ts) <= MAX_SKEW_MS;

/**
 * What the edge tells the origin about a forwarded request. The origin
 * still identifies the caller itself, from `credential` (the SHA-256 hex of
 * the `X-API-Key` the client sent, which the edge does not forward) in its
 * own directory, checking the key's state and allow-list against `ip`.
 */
export interface CallerAssertion {
  /** When the edge forwarded the request (ms since the epoch). */
  ts: number;
  /** The client's address (`CF-Connecting-IP`). */
  ip: string;
  method: string;
  /** Path and query string of the forwarded request, as sent. */
  target: string;
  /** SHA-256 hex of the client's `X-API-Key`; null when it sent none. */
  credential: string | null;
  /** The edge counted this request against `SLUICE_RATE_LIMIT` (per client address). */
  clientLimited: boolean;
  /** The edge counted it against the key's own `rate_limit`. */
  keyLimited: boolean;
}

function base64url(text: string): string {
  let binary = '';
  for (const byte of encoder.encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): string | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

/** The header value: base64url of the JSON, a dot, its signature. */
export async function encodeAssertion(secret: string, assertion: CallerAssertion): Promise<string> {
  const payload = base64url(JSON.stringify(assertion));
  return `${payload}.${await sign(secret, 'assertion', payload)}`;
}

const isAssertion = (value: unknown): value is CallerAssertion => {
  const a = value as Record<string, unknown> | null;
  return (
    a !== null &&
    typeof a === 'object' &&
    typeof a.ts === 'number' &&
    typeof a.ip === 'string' &&
    typeof a.method === 'string' &&
    typeof a.target === 'string' &&
    (a.credential === null || (typeof a.credential === 'string' && /^[0-9a-f]{64}$/.test(a.credential))) &&
    typeof a.clientLimited === 'boolean' &&
    typeof a.keyLimited === 'boolean'
  );
};

/**
 * The assertion of a header, or null unless its signature verifies, its
 * timestamp is fresh, and it was made for this very method and target.
 */
export async function verifyAssertion(secret: string, header: string, request: { method: string; target: string }, now: number): Promise<CallerAssertion | null> {
  const dot = header.indexOf('.');
  if (dot <= 0) return null;
  const payload = header.slice(0, dot);
  if (!(await verify(secret, 'assertion', payload, header.slice(dot + 1)))) return null;
  const json = fromBase64url(payload);
  if (json === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  if (!isAssertion(parsed) || !fresh(parsed.ts, now)) return null;
  if (parsed.method !== request.method || parsed.target !== request.target) return null;
  return parsed;
}
