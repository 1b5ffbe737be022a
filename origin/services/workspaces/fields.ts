import { z } from 'zod';
import { ADMIN_ROLES } from '../../access/capabilities.ts';
import { SluiceError } from '../../errors.ts';

/** The bodies the workspace verbs accept; unknown fields are refused (`unknown_field`). */

const description = z.string().max(1000, 'must be at most 1000 characters').nullable().optional();

export const createFields = z.strictObject({ name: z.string(), description });
export type CreateFields = z.infer<typeof createFields>;

export const updateFields = z.strictObject({ description });
export type UpdateFields = z.infer<typeof updateFields>;

export const memberFields = z.strictObject({
  role: z.enum(ADMIN_ROLES, { message: `must be one of ${ADMIN_ROLES.join(', ')}` }),
});
export type MemberFields = z.infer<typeof memberFields>;

/** A path segment (`/w/<name>/api/v1`): like a collection name, 1-63 lower-case letters, digits, `.`, `_`, `-`. */
const NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;

export function assertValidName(name: string): void {
  if (!NAME.test(name)) {
    throw new SluiceError(
      'invalid_name',
      `Workspace name ${JSON.stringify(name)} must be 1-63 characters of lower-case letters, digits, ".", "_" or "-", starting with a letter or digit`,
      { field: 'name' },
    );
  }
}
