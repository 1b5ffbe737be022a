/**
 * The spec's public endpoints, and the index at `/` that points a newcomer to
 * them: answered without a key (an anonymous caller), on the origin and at the
 * edge alike.
 */
const PUBLIC_PATHS = new Set(['/', '/health', '/docs', '/openapi.json', '/metrics']);

/** A stored result's chunk link: its signature is the credential (docs/reference/results.md). */
const CHUNK_LINK = /^\/results\/[^/]+\/chunks\/[^/]+$/;

export const isPublicPath = (path: string): boolean => PUBLIC_PATHS.has(path) || path === '/console' || path.startsWith('/console/') || CHUNK_LINK.test(path);
