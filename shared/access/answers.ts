/**
 * What the origin and the edge both answer about access, word for word, so a
 * client cannot tell which of them answered.
 */
export const UNAUTHORIZED_MESSAGE = 'Missing or invalid API key';
export const RATE_LIMITED_MESSAGE = 'Rate limit exceeded';
export const KEY_RATE_LIMITED_MESSAGE = 'Rate limit exceeded for this API key';

/** The spec's public health check is never limited (load balancers poll it). */
export const NEVER_LIMITED_PATHS: ReadonlySet<string> = new Set(['/health']);
