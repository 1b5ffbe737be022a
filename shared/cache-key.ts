/**
 * Response-cache keys for saved-query runs, derived the same way on the origin
 * and at the edge (Web APIs only: no Node built-ins).
 *
 * A key is the SHA-256 (hex) of the canonical JSON of every part that decides
 * the bytes of a response: the exact query name, the version that ran, the
 * connection it ran on, the resolved parameter values (after rules, defaults
 * and conversions, so a GET and a POST that resolve alike share a key), the
 * format, and the page and page size.
 */

export interface CacheKeyParts {
  query: string;
  version: number;
  connection: string;
  /** Resolved parameter values, as bound (bigint past 2^53 included). */
  params: Record<string, unknown>;
  format: string;
  page: number;
  pageSize: number;
  /** An MCP tool's page also counts the rows after it (its answer says how many): kept apart from plain pages. */
  countBeyond?: number;
  /** An MCP tool's page also ends at a byte budget: kept apart from pages of other budgets. */
  maxBytes?: number;
}

/** Bumped if the key's recipe changes, so old entries are never read under a new meaning. */
const KEY_RECIPE = 1;

export async function cacheKey(parts: CacheKeyParts): Promise<string> {
  return sha256Hex(new TextEncoder().encode(cacheKeyText(parts)));
}

/** The text whose SHA-256 is the key (the origin hashes it synchronously with node:crypto, off Web Crypto's promise). */
export function cacheKeyText(parts: CacheKeyParts): string {
  const recipe = [KEY_RECIPE, parts.query, parts.version, parts.connection, parts.params, parts.format, parts.page, parts.pageSize];
  const mcp = parts.maxBytes === undefined ? [] : [parts.maxBytes];
  return canonicalJson(parts.countBeyond === undefined && mcp.length === 0 ? recipe : [...recipe, parts.countBeyond ?? null, ...mcp]);
}

/**
 * JSON with object keys sorted (by UTF-16 code units) at every depth. A bigint
 * is written as its digits (a JSON number, never a string, so `"5"` and `5n`
 * differ); a Date as its ISO text; an undefined member is left out, as JSON
 * does; a non-finite number as `null`.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      return 'null';
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (value instanceof Uint8Array) return JSON.stringify({ $bytes: [...value] });
  const members = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${members.join(',')}}`;
}

/** SHA-256 as lowercase hex, through Web Crypto. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** Keys are 64 lowercase hex characters; anything else names no entry. */
export const CACHE_KEY_PATTERN = /^[0-9a-f]{64}$/;
