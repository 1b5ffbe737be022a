import { z } from 'zod';
import { grantFieldsShape } from '../../../shared/access/grants-input.ts';

/** POST /api/v1/roles: a name and the key grant fields (never `expires_at` or `active`). */
export const createRoleFields = z.strictObject({ name: z.string(), ...grantFieldsShape });
export type CreateRoleFields = z.infer<typeof createRoleFields>;

/** PATCH /api/v1/roles/{name}: the grant fields; null resets one. `name` may only repeat the current one. */
export const updateRoleFields = z.strictObject({ name: z.string().optional(), ...grantFieldsShape });
export type UpdateRoleFields = z.infer<typeof updateRoleFields>;
