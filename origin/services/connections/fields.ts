import { z } from 'zod';
import type { DriverType } from '../../drivers/types.ts';
import { badRequest } from '../../errors.ts';
import { assertObjectName } from '../names.ts';

/**
 * The bodies the connection verbs accept. Objects are strict, so an unknown
 * field is refused with `unknown_field` (see `http/body.ts`). Name rules give
 * their own code (`invalid_name`), so the name is checked after parsing.
 */

export const SUPPORTED_TYPES: readonly DriverType[] = ['postgres', 'mysql', 'duckdb', 'sqlite', 'mongodb', 'clickhouse', 'jdbc', 'h2'];

/** Other spellings accepted on input and stored under the canonical type. */
const TYPE_ALIASES: Record<string, DriverType> = { mariadb: 'mysql' };

/** The password as responses show a literal one. Sent back, it keeps the stored password. */
export const PASSWORD_MASK = '********';

const dbField = z.string().transform((value, ctx): DriverType => {
  const type = TYPE_ALIASES[value] ?? value;
  if ((SUPPORTED_TYPES as string[]).includes(type)) return type as DriverType;
  ctx.addIssue({ code: 'custom', message: `Unsupported connection type "${value}"; supported: ${SUPPORTED_TYPES.join(', ')} (mariadb is an alias of mysql)` });
  return z.NEVER;
});

const optionalText = z.string().nullable().optional();
const port = z.number().int('port must be a whole number').min(1, 'port must be 1-65535').max(65535, 'port must be 1-65535').nullable().optional();
const options = z.record(z.string(), z.unknown()).nullable().optional();

const settingsShape = {
  host: optionalText,
  port,
  user: optionalText,
  password: optionalText,
  database: optionalText,
  active: z.boolean().optional(),
  options,
};

/** POST /api/v1/connections */
export const createFields = z.strictObject({ name: z.string(), db: dbField, ...settingsShape });
export type CreateFields = z.infer<typeof createFields>;

/** PATCH /api/v1/connections/{name}: every field optional; null removes an optional one. `name` may only repeat the current one. */
export const updateFields = z.strictObject({ name: z.string().optional(), db: dbField.optional(), ...settingsShape });
export type UpdateFields = z.infer<typeof updateFields>;

/**
 * POST /api/v1/connections/test and /databases: either `{name}` of a saved
 * connection or unsaved fields (the create schema with `name` optional).
 */
export const probeFields = z.strictObject({ name: z.string().optional(), db: dbField.optional(), ...settingsShape });
export type ProbeFields = z.infer<typeof probeFields>;

/** DELETE /api/v1/connections/{name}. `reason` is checked by the verb so a missing one gives `reason_required`. */
export const removeFields = z.strictObject({ reason: z.unknown().optional() });

/** The settings a connection row holds, after defaults. */
export interface ConnectionFields {
  db: DriverType;
  host: string | null;
  port: number | null;
  user: string | null;
  password: string | null;
  database: string | null;
  active: boolean;
  options: Record<string, unknown>;
}

/** See services/names.ts; `deleted` is the route listing deleted connections. */
export const assertValidName = (name: string): void => assertObjectName('Connection', name, new Set(['deleted']));

/** Rules that depend on the type: network servers need a host (mongodb: or options.uri), SQLite needs a file, JDBC its URL, class and jar. */
export function assertTypeRules(fields: Pick<ConnectionFields, 'db' | 'host' | 'database'> & { options?: Record<string, unknown> }): void {
  const errors: Record<string, string> = {};
  if (fields.db === 'mongodb' && !fields.host && typeof fields.options?.uri !== 'string') errors.host = 'A mongodb connection needs a host or options.uri';
  if ((fields.db === 'postgres' || fields.db === 'mysql' || fields.db === 'clickhouse') && !fields.host) errors.host = `A ${fields.db} connection needs a host`;
  if (fields.db === 'sqlite' && !fields.database) errors.database = 'A sqlite connection needs a database file path';
  if (fields.db === 'sqlite' && fields.database === ':memory:') errors.database = 'A sqlite connection needs a database file path, not :memory:';
  if (fields.db === 'jdbc' || fields.db === 'h2') {
    const options = fields.options ?? {};
    const needed = fields.db === 'jdbc' ? ['jdbc_url', 'driver_class', 'driver_jar'] : ['jdbc_url'];
    for (const key of needed) {
      if (typeof options[key] !== 'string' || options[key] === '') errors[`options.${key}`] = `A ${fields.db} connection needs options.${key}`;
    }
  }
  const messages = Object.values(errors);
  if (messages.length > 0) throw badRequest(messages.join('; '), { errors });
}

/** Fills defaults for a new (or unsaved) connection: absent and null alike become null, `{}`, `true`. */
export function withDefaults(input: Omit<ProbeFields, 'name' | 'db'> & { db: DriverType }): ConnectionFields {
  return {
    db: input.db,
    host: input.host ?? null,
    port: input.port ?? null,
    user: input.user ?? null,
    password: input.password ?? null,
    database: input.database ?? null,
    active: input.active ?? true,
    options: input.options ?? {},
  };
}
