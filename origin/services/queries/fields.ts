import { z } from 'zod';
import { SluiceError } from '../../errors.ts';
import { assertObjectName } from '../names.ts';

/**
 * The bodies the saved-query verbs accept. Objects are strict, so an unknown
 * field is refused with `unknown_field` (see `http/body.ts`). The definition
 * fields (`sql`, `parameters`, `connection_name`, `tags`, `cache_ttl`) are
 * taken as they come and checked by `definition.ts`, which lists every
 * problem at once; the name has its own code (`invalid_name`) and is checked
 * after parsing.
 */

/** The longest `cache_ttl`: one year, in seconds (the store keeps a 32-bit integer). */
export const MAX_CACHE_TTL = 31_536_000;
export const CACHE_TTL_PROBLEM = `must be a whole number of seconds from 0 to ${MAX_CACHE_TTL} (one year), or null`;

/** A version number as a body gives it: the store's numbers never get past 9 digits (as in paths, lookup.ts). */
export const MAX_VERSION = 999_999_999;

const definitionShape = {
  description: z.string().nullable().optional(),
  sql: z.unknown().optional(),
  connection_name: z.unknown().optional(),
  parameters: z.unknown().optional(),
  tags: z.unknown().optional(),
  cache_ttl: z.unknown().optional(),
  publish: z.boolean().optional(),
  author: z.string().nullable().optional(),
  query_type: z.string().optional(),
  // Document-database queries: accepted here so they get the definition's answer, not `unknown_field`.
  mongo_collection: z.unknown().optional(),
  mongo_filter: z.unknown().optional(),
  mongo_projection: z.unknown().optional(),
  mongo_sort: z.unknown().optional(),
};

/** POST /api/v1/queries */
export const createFields = z.strictObject({
  name: z.string(),
  collection: z.string().nullable().optional(),
  ...definitionShape,
});
export type CreateFields = z.infer<typeof createFields>;

/** Where a saved version came from when not from the Management API itself: its `save_query` audit entry says so. */
export type SaveSource = 'import';

/** POST /api/v1/queries/{name}/versions: the create body minus name and collection. */
export const versionFields = z.strictObject(definitionShape);
export type VersionFields = z.infer<typeof versionFields>;

/** POST /api/v1/queries/{name}/publish */
export const publishFields = z.strictObject({
  version: z.number().int('version must be a whole number').positive('version must be 1 or more').max(MAX_VERSION, `version must be at most ${MAX_VERSION}`),
});

/** POST /api/v1/queries/{name}/unpublish: no body (an empty object is accepted). */
export const unpublishFields = z.strictObject({});

/** PATCH /api/v1/queries/{name}: the collection only. */
export const moveFields = z.strictObject({ collection: z.string().nullable() });

/** PATCH /api/v1/queries/{name}/versions/{n}: `cache_ttl` in place. */
export const cacheTtlFields = z.strictObject({
  cache_ttl: z.number({ error: `cache_ttl ${CACHE_TTL_PROBLEM}` }).int(`cache_ttl ${CACHE_TTL_PROBLEM}`).min(0, `cache_ttl ${CACHE_TTL_PROBLEM}`).max(MAX_CACHE_TTL, `cache_ttl ${CACHE_TTL_PROBLEM}`).nullable(),
});

/** See services/names.ts; a query name is also a `/q/<name>` path segment. */
export const assertValidName = (name: string): void => assertObjectName('Query', name);

const COLLECTION_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/** Why a collection name is refused, or null when it is valid. Never case-folded. */
export function collectionNameProblem(name: string): string | null {
  if (name.length < 1 || name.length > 63) return 'must be 1-63 characters';
  if (!COLLECTION_NAME.test(name)) {
    return /[A-Z]/.test(name)
      ? 'must be lowercase (names are never case-folded)'
      : 'must be lowercase letters, digits, ".", "_" or "-", starting with a letter or digit';
  }
  return null;
}

/** 400 `invalid_request` with `errors.collection` for a refused collection name. */
export function assertCollectionName(name: string | null | undefined): void {
  const problem = collectionProblems(name).collection;
  if (problem) {
    throw new SluiceError('invalid_request', `Collection name ${JSON.stringify(name)} ${problem}`, { errors: { collection: problem } });
  }
}

/** `{collection: problem}` for a refused name, else `{}`: to list with a definition's other problems. */
export function collectionProblems(name: string | null | undefined): Record<string, string> {
  if (name === null || name === undefined) return {};
  const problem = collectionNameProblem(name);
  return problem ? { collection: problem } : {};
}
