import { randomBytes } from 'node:crypto';

/**
 * A name no other test uses: lower-case, a valid identifier, random rather
 * than counted, since test files share one origin per worker (shared-origin.ts)
 * and a per-module counter would start again in each file.
 */
export const unique = (prefix: string): string => `${prefix}_${randomBytes(4).toString('hex')}`;
