/**
 * The spec's public endpoints, and the index at `/` that points a newcomer to
 * them: answered without a key (an anonymous caller), on the origin and at the
 * edge alike.
 */
const PUBLIC_PATHS = new Set(['/', '/health', '/docs', '/openapi.json', '/metrics']);

export const isPublicPath = (path: string): boolean => PUBLIC_PATHS.has(path) || path === '/console' || path.startsWith('/console/');
