import { z } from 'zod';
import { canonicalCidr } from './cidr.ts';
import { type Budget, GRANT_FIELDS, type KeyGrants, type QueryGrantEntry, emptyGrants } from './grants.ts';
import { formatQuota, formatRate, parseQuota, parseRate } from './rate.ts';

/**
 * The grant fields of a key or role request body, turned into their stored
 * form (`KeyGrants`). Each field is optional; null resets it to what a new
 * key gets when the field is left out (no connections, no limit, every
 * address...). Whether named collections exist is the store's question and
 * is checked by the verbs.
 */

const WILDCARD = '*';
const NAME_MAX = 100;

const grantName = (what: string) =>
  z.string().trim().min(1, `${what} names must not be empty`).max(NAME_MAX, `${what} names are at most ${NAME_MAX} characters`);

const unique = <T>(items: T[]): T[] => [...new Set(items)];

/** A list of names, `*` for all (stored `['*']`), or empty for none. */
const connections = z
  .union([z.literal(WILDCARD), z.array(grantName('Connection'))], { error: 'must be a list of connection names, or "*"' })
  .transform((value) => (value === WILDCARD || value.includes(WILDCARD) ? [WILDCARD] : unique(value)));

const queryEntry = z.union(
  [grantName('Query'), z.strictObject({ name: grantName('Query'), allow_writes: z.boolean().optional() })],
  { error: 'each entry must be a query name or {name, allow_writes}' },
);

/**
 * Query names, `*`, or `{name, allow_writes}` objects. A plain name is
 * read-only, so an object without write access is stored as its name; `*`
 * never carries write access. A name given both ways keeps write access.
 */
const queries = z
  .union([z.literal(WILDCARD), z.array(queryEntry)], { error: 'must be a list of query names or {name, allow_writes} objects, or "*"' })
  .transform((value, ctx): Array<string | QueryGrantEntry> => {
    if (value === WILDCARD) return [WILDCARD];
    const writable = new Set<string>();
    const readable: string[] = [];
    for (const entry of value) {
      if (typeof entry === 'string' || entry.allow_writes !== true) {
        readable.push(typeof entry === 'string' ? entry : entry.name);
      } else if (entry.name === WILDCARD) {
        ctx.addIssue({ code: 'custom', message: '"*" never carries write access: name each query that may write' });
      } else {
        writable.add(entry.name);
      }
    }
    const names = unique([...readable, ...writable]);
    return names.map((name) => (writable.has(name) ? { name, allow_writes: true } : name));
  });

/** Collection names, each checked against the store by the verb; no wildcard. */
const collections = z.array(grantName('Collection')).transform((value, ctx) => {
  if (value.includes(WILDCARD)) ctx.addIssue({ code: 'custom', message: 'collections have no wildcard: name each collection' });
  return unique(value).sort();
});

/** Leading SQL keywords a key may write with, matched case-insensitively (stored lower-case). */
const allowedWriteOps = z
  .array(z.string().trim().regex(/^[A-Za-z]{1,30}$/, 'each entry must be one SQL keyword, such as insert'))
  .transform((value) => unique(value.map((op) => op.toLowerCase())));

/** One name part as a statement writes it, quotes left out: letters, digits, `_`, `$`, `-`. */
const IDENTIFIER = /^[\p{L}\p{N}_$-]+$/u;

/** `table`, `schema.table` or `schema.*`, compared case-insensitively (stored lower-case). */
export function tablePatternProblem(pattern: string): string | null {
  const parts = pattern.split('.');
  if (parts.length > 2) return 'has more than two parts: use table, schema.table or schema.*';
  if (parts.length === 2 && parts[1] === WILDCARD) parts.pop();
  return parts.every((part) => IDENTIFIER.test(part)) ? null : 'must be table, schema.table or schema.* (letters, digits, _, $ and -)';
}

const allowedTables = z.array(z.string().trim()).transform((value, ctx) => {
  for (const pattern of value) {
    const problem = tablePatternProblem(pattern);
    if (problem) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(pattern)} ${problem}` });
  }
  return unique(value.map((pattern) => pattern.toLowerCase()));
});

const positiveWhole = (what: string) =>
  z.number({ error: `${what} must be a whole number of at least 1` }).int(`${what} must be a whole number of at least 1`).min(1, `${what} must be at least 1`).max(Number.MAX_SAFE_INTEGER);

const quota = z.string({ error: 'must be N/day or N/month' }).transform((value, ctx) => {
  const spec = parseQuota(value);
  if (!spec) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(value)} must be N/day or N/month` });
  return spec ? formatQuota(spec) : value;
});

/** The longest time limit a key or a request may set, in seconds: a week. */
export const MAX_TIMEOUT_SECONDS = 86_400 * 7;

const queryTimeout = z
  .number({ error: 'query_timeout must be a number of seconds' })
  .positive('query_timeout must be more than 0 seconds')
  .max(MAX_TIMEOUT_SECONDS, `query_timeout is at most ${MAX_TIMEOUT_SECONDS} seconds`);

const rateLimit = z.string({ error: 'must be N/second, N/minute, N/hour or N/day' }).transform((value, ctx) => {
  const spec = parseRate(value);
  if (!spec) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(value)} must be N/second, N/minute, N/hour or N/day` });
  return spec ? formatRate(spec) : value;
});

const allowedIps = z.array(z.string()).transform((value, ctx) => {
  const bad = value.filter((entry) => canonicalCidr(entry) === null);
  if (bad.length > 0) ctx.addIssue({ code: 'custom', message: `not an IPv4/IPv6 address or CIDR range: ${bad.map((b) => JSON.stringify(b)).join(', ')}` });
  return unique(value.map((entry) => canonicalCidr(entry) ?? entry));
});

const budget = z
  .strictObject(
    {
      max_estimated_rows: positiveWhole('max_estimated_rows').nullable().default(null),
      rows_per_day: positiveWhole('rows_per_day').nullable().default(null),
      db_seconds_per_day: z
        .number({ error: 'db_seconds_per_day must be a number of seconds' })
        .positive('db_seconds_per_day must be more than 0 seconds')
        .max(86_400, 'db_seconds_per_day is at most 86400 (a day)')
        .nullable()
        .default(null),
    },
    { error: 'must be {max_estimated_rows, rows_per_day, db_seconds_per_day}' },
  )
  // A budget with no limit in it is no budget.
  .transform((value): Budget | null => (value.max_estimated_rows === null && value.rows_per_day === null && value.db_seconds_per_day === null ? null : value));

/** Null resets a field to its value on a new key. */
const resettable = <T extends z.ZodType, F extends keyof KeyGrants>(schema: T, field: F) =>
  schema
    .nullable()
    .transform((value) => (value ?? emptyGrants()[field]) as KeyGrants[F])
    .optional();

/** The grant fields of a key or role body, to spread into its strict object schema. */
export const grantFieldsShape = {
  connections: resettable(connections, 'connections'),
  queries: resettable(queries, 'queries'),
  collections: resettable(collections, 'collections'),
  allow_writes: resettable(z.boolean(), 'allow_writes'),
  allowed_write_ops: resettable(allowedWriteOps, 'allowed_write_ops'),
  allowed_tables: resettable(allowedTables, 'allowed_tables'),
  max_rows: resettable(positiveWhole('max_rows'), 'max_rows'),
  quota: resettable(quota, 'quota'),
  max_concurrent: resettable(positiveWhole('max_concurrent'), 'max_concurrent'),
  query_timeout: resettable(queryTimeout, 'query_timeout'),
  rate_limit: resettable(rateLimit, 'rate_limit'),
  allowed_ips: resettable(allowedIps, 'allowed_ips'),
  budget: resettable(budget, 'budget'),
};

/** The grant fields a body gave (a field left out is absent). */
export type GrantsInput = Partial<KeyGrants>;

/** The grant fields present in a parsed body. */
export function grantsGiven(body: Record<string, unknown>): GrantsInput {
  const given: Record<string, unknown> = {};
  for (const field of GRANT_FIELDS) if (body[field] !== undefined) given[field] = body[field];
  return given as GrantsInput;
}

/** `base` with the given fields replaced. */
export function applyGrants(base: KeyGrants, input: GrantsInput): KeyGrants {
  const merged = { ...base };
  for (const field of GRANT_FIELDS) {
    if (input[field] !== undefined) (merged as Record<string, unknown>)[field] = input[field];
  }
  return merged;
}

/** Every grant field, in the table's order, filled from `grants` (old rows may lack newer fields). */
export function completeGrants(grants: Partial<KeyGrants>): KeyGrants {
  return applyGrants(emptyGrants(), grants);
}
