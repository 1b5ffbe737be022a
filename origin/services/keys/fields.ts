import { z } from 'zod';
import { assertObjectName } from '../names.ts';
import { grantFieldsShape } from '../../../shared/access/grants-input.ts';
import { periodKey } from '../../access/periods.ts';

/**
 * The bodies the key verbs accept. Objects are strict (an unknown field is
 * 400 `unknown_field`); the name rule has its own code, so names are checked
 * by the verbs after parsing.
 */

/** Caller names the server itself uses (the server key, an open server): a key under one would share its history and usage. */
const RESERVED_KEY_NAMES = new Set(['admin', '-']);

/** See services/names.ts; `admin` and `-` name the server key and anonymous callers. */
export const assertAccessName = (kind: 'API key' | 'Role', name: string): void =>
  assertObjectName(kind, name, kind === 'API key' ? RESERVED_KEY_NAMES : new Set(), 'is reserved for the server key');

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

const isCalendarDate = (text: string): boolean => {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};

/**
 * The stored form of `expires_at`: a date `YYYY-MM-DD`, valid through the end
 * of that day in the server's zone. A full timestamp is accepted too and
 * keeps the date it falls on in the server's zone (one without an offset is
 * read as server time); null when neither.
 */
export function expiryDate(text: string): string | null {
  const trimmed = text.trim();
  if (DATE.test(trimmed)) return isCalendarDate(trimmed) ? trimmed : null;
  const match = TIMESTAMP.exec(trimmed);
  if (!match || !isCalendarDate(match[1]!)) return null;
  if (Number(match[2]) > 23 || Number(match[3]) > 59 || Number(match[4] ?? 0) > 59) return null;
  if (!match[5]) return match[1]!;
  const zone = match[5].toUpperCase() === 'Z' ? 'Z' : match[5].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
  const instant = Date.parse(`${trimmed.slice(0, trimmed.length - match[5].length).replace(' ', 'T')}${zone}`);
  return Number.isNaN(instant) ? null : periodKey('day', instant);
}

const expiresAt = z
  .string({ error: 'expires_at must be a date YYYY-MM-DD (or an ISO timestamp), or null' })
  .transform((text, ctx) => {
    const date = expiryDate(text);
    if (date === null) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(text)} is not a date YYYY-MM-DD or an ISO timestamp` });
    return date ?? text;
  })
  .nullable()
  .optional();

/** POST /api/v1/api-keys: explicit grants, or `role` (copied once) with at most `expires_at` and `active`. */
export const createKeyFields = z.strictObject({
  name: z.string(),
  role: z.string().nullable().optional(),
  expires_at: expiresAt,
  active: z.boolean().optional(),
  ...grantFieldsShape,
});
export type CreateKeyFields = z.infer<typeof createKeyFields>;

/** PATCH /api/v1/api-keys/{name}: every field optional; null resets one. `name` may only repeat the current one. */
export const updateKeyFields = z.strictObject({
  name: z.string().optional(),
  expires_at: expiresAt,
  active: z.boolean().optional(),
  ...grantFieldsShape,
});
export type UpdateKeyFields = z.infer<typeof updateKeyFields>;

export const MAX_GRACE_MINUTES = 10_080;
export const DEFAULT_GRACE_MINUTES = 60;

/** POST /api/v1/api-keys/{name}/rotate: `grace_minutes` 0-10080 (default 60; 0 ends the old secret at once). */
export const rotateFields = z.strictObject({
  grace_minutes: z
    .number({ error: 'grace_minutes must be a whole number of minutes' })
    .int('grace_minutes must be a whole number of minutes')
    .min(0, 'grace_minutes must be 0 or more')
    .max(MAX_GRACE_MINUTES, `grace_minutes is at most ${MAX_GRACE_MINUTES} (7 days)`)
    .optional(),
});
export type RotateFields = z.infer<typeof rotateFields>;
