import { sha256Hex } from './cache-key.ts';

/**
 * ETags of cached query responses, computed alike on the origin and at the
 * edge (Web APIs only): strong, quoted, the SHA-256 hex of the body.
 */
export async function bodyEtag(body: Uint8Array): Promise<string> {
  return `"${await sha256Hex(body)}"`;
}

/**
 * `If-None-Match` against a current ETag, with the weak comparison RFC 9110
 * asks for: `*` matches, `W/` prefixes are ignored, any listed tag may match.
 */
export function noneMatch(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  const trimmed = header.trim();
  if (trimmed === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const current = opaque(etag);
  return (trimmed.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => opaque(tag) === current);
}
