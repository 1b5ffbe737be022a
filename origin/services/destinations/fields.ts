import { z } from 'zod';
import type { Env } from '../../env.ts';
import { SluiceError, badRequest } from '../../errors.ts';
import { localFolderRules } from '../../object-storage/index.ts';
import { parseDestinationUrl } from '../../object-storage/url.ts';

/**
 * The bodies the destination verbs accept. Objects are strict, so an unknown
 * field is refused with `unknown_field` (see `http/body.ts`). Name rules give
 * their own code (`invalid_name`), so the name is checked after parsing.
 */

const optionalText = z.string().nullable().optional();
/** `http(s)://host[:port]`: a path would be read as part of every key. */
const endpoint = z
  .string()
  .regex(/^https?:\/\/[^/?#\s@]+\/?$/i, 'must be an http:// or https:// address with no path, e.g. http://127.0.0.1:9000')
  .nullable()
  .optional();
const region = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "-" or "_" (e.g. us-east-1, auto)').nullable().optional();

const settingsShape = { region, endpoint, user: optionalText, password: optionalText };

/** POST /api/v1/destinations */
export const createFields = z.strictObject({ name: z.string(), url: z.string(), ...settingsShape });
export type CreateFields = z.infer<typeof createFields>;

/** PATCH /api/v1/destinations/{name}: every field optional; null removes an optional one. `name` may only repeat the current one. */
export const updateFields = z.strictObject({ name: z.string().optional(), url: z.string().optional(), ...settingsShape });
export type UpdateFields = z.infer<typeof updateFields>;

/** POST /api/v1/destinations/test: `{name}` of a saved destination, or unsaved fields (the create schema with `name` optional). */
export const probeFields = z.strictObject({ name: z.string().optional(), url: z.string().optional(), ...settingsShape });
export type ProbeFields = z.infer<typeof probeFields>;

/** POST /api/v1/destinations/{name}/test: the name is in the path; a body, if any, is empty. */
export const savedProbeFields = z.strictObject({});

/** The settings a destination row holds. */
export interface DestinationFields {
  url: string;
  region: string | null;
  endpoint: string | null;
  user: string | null;
  password: string | null;
}

const NAME_CHARS = /^[\p{L}\p{N} ._-]{1,100}$/u;

/**
 * The rules connection names follow: 1-100 letters, digits, spaces, `.`,
 * `_` or `-`; no leading or trailing space (invisible in URLs), not only
 * dots (clients collapse `.`/`..` path segments).
 */
export function assertValidName(name: string): void {
  let problem: string | null = null;
  if (!NAME_CHARS.test(name)) problem = 'must be 1-100 characters: letters, digits, spaces, ".", "_" or "-"';
  else if (name.trim() !== name) problem = 'must not start or end with a space';
  else if (/^\.+$/.test(name)) problem = 'must not consist only of dots';
  if (problem) throw new SluiceError('invalid_name', `Destination name ${JSON.stringify(name)} ${problem}`, { field: 'name' });
}

/** Fills defaults for a new (or unsaved) destination: absent and null alike become null. */
export function withDefaults(input: Omit<ProbeFields, 'name' | 'url'> & { url: string }): DestinationFields {
  return { url: input.url, region: input.region ?? null, endpoint: input.endpoint ?? null, user: input.user ?? null, password: input.password ?? null };
}

/**
 * Rules across fields, on what a destination would hold: the url is one this
 * server allows (a local folder inside SLUICE_EXPORT_DIRS...); a bucket needs
 * its credentials given (instance roles are never used), and an `r2://` one
 * its account endpoint; a local folder takes none of them.
 */
export function assertDestinationRules(fields: DestinationFields, env: Pick<Env, 'SLUICE_EXPORT_DIRS' | 'SLUICE_DATA_DIR'>): void {
  const target = parseDestinationUrl(fields.url, localFolderRules(env));
  const errors: Record<string, string> = {};
  if (target.kind === 'bucket') {
    if (!fields.user) errors.user = 'is required: the access key id (credentials must be given; instance roles are not used)';
    if (!fields.password) errors.password = 'is required: the secret key, or a ${VAR} reference to it';
    if (target.scheme === 'r2' && !fields.endpoint) errors.endpoint = 'is required for r2://: the account endpoint, https://<account id>.r2.cloudflarestorage.com';
  } else {
    for (const field of ['region', 'endpoint', 'user', 'password'] as const) {
      if (fields[field] !== null) errors[field] = 'is not used by a local folder: leave it out';
    }
  }
  const problems = Object.entries(errors).map(([field, problem]) => `${field} ${problem}`);
  if (problems.length > 0) throw badRequest(problems.join('; '), { errors });
}
