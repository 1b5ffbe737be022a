import { z } from 'zod';
import { assertObjectName } from '../names.ts';
import { ADMIN_ROLES } from '../../access/capabilities.ts';
import { badRequest } from '../../errors.ts';
import { offsetMinutesAt } from '../../time.ts';
import { periodEnd } from '../../access/periods.ts';

/** The bodies the administrator and token verbs accept; unknown fields are refused (`unknown_field`). */

const role = z.enum(ADMIN_ROLES, { message: `must be one of ${ADMIN_ROLES.join(', ')}, or null` });
const email = z.string().trim().max(254, 'must be at most 254 characters').regex(/^[^\s@]+@[^\s@]+$/, 'must be an email address').nullable();

/** `role` is required on create, and may be null (only workspace memberships then give roles). */
export const createFields = z.strictObject({
  name: z.string(),
  role: role.nullable(),
  email: email.optional(),
});
export type CreateFields = z.infer<typeof createFields>;

export const updateFields = z.strictObject({
  role: role.nullable().optional(),
  email: email.optional(),
  active: z.boolean().optional(),
});
export type UpdateFields = z.infer<typeof updateFields>;

export const issueFields = z.strictObject({
  label: z.string().trim().max(200, 'must be at most 200 characters').nullable().optional(),
  expires_at: z.string().nullable().optional(),
});
export type IssueFields = z.infer<typeof issueFields>;

/** See services/names.ts. */
export const assertValidName = (name: string): void => assertObjectName('Administrator', name);

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A token's `expires_at`: a date `YYYY-MM-DD` (valid through the end of that
 * day in the server's zone, like a key's: stored as its last millisecond) or
 * an instant with its offset (`2030-01-31T18:00:00+01:00`), valid through
 * that instant. It must lie in the future.
 */
export function tokenExpiry(text: string | null | undefined, now = Date.now()): Date | null {
  if (text === undefined || text === null) return null;
  let instant: number;
  const date = DATE.exec(text);
  if (date) {
    const noonUtc = Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]), 12);
    const check = new Date(noonUtc);
    if (check.getUTCFullYear() !== Number(date[1]) || check.getUTCMonth() !== Number(date[2]) - 1 || check.getUTCDate() !== Number(date[3])) {
      throw invalidExpiry('is not a real date');
    }
    // Local noon of that day, then the last millisecond of its day in the server's zone.
    instant = periodEnd('day', noonUtc - offsetMinutesAt(noonUtc) * 60_000) - 1;
  } else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) {
    instant = Date.parse(text);
    if (Number.isNaN(instant)) throw invalidExpiry('is not a real instant');
  } else {
    throw invalidExpiry('must be a date (YYYY-MM-DD) or an instant with its offset');
  }
  if (instant <= now) throw invalidExpiry('is in the past');
  return new Date(instant);
}

const invalidExpiry = (problem: string) => badRequest(`expires_at ${problem}`, { errors: { expires_at: problem } });
