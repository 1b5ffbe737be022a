import { count, eq, inArray } from 'drizzle-orm';
import { completeGrants } from '../../../shared/access/grants-input.ts';
import { GRANT_FIELDS, type KeyGrants } from '../../../shared/access/grants.ts';
import type { StoreDb } from '../../store/open.ts';
import { type RoleRow, apiKeys } from '../../store/schema/index.ts';
import { formatDate } from '../../time.ts';
import { roleEtag } from './lookup.ts';

/** A role as the Management API shows it: the grant template and how many keys were created from it. */
export type RoleView = { name: string; workspace: string } & KeyGrants & {
    /** Keys whose `created_from_role` is this name (copies made once; later edits never reach them). */
    keys_created: number;
    created_at: string;
    created_by: string | null;
    updated_at: string;
  };

export interface RoleRead {
  role: RoleView;
  etag: string;
}

/** `keys_created` of each named role, in one query. */
export async function keysCreatedFrom(db: StoreDb, names: string[]): Promise<Map<string, number>> {
  if (names.length === 0) return new Map();
  const rows = await db
    .select({ role: apiKeys.createdFromRole, n: count() })
    .from(apiKeys)
    .where(inArray(apiKeys.createdFromRole, names))
    .groupBy(apiKeys.createdFromRole);
  return new Map(rows.map((row) => [row.role!, row.n]));
}

export function roleView(row: RoleRow, keysCreated: number): RoleView {
  return {
    name: row.name,
    workspace: row.workspace,
    ...completeGrants(row.grants),
    keys_created: keysCreated,
    created_at: formatDate(row.createdAt),
    created_by: row.createdBy,
    updated_at: formatDate(row.updatedAt),
  };
}

export async function roleRead(db: StoreDb, row: RoleRow): Promise<RoleRead> {
  const [{ n }] = await db.select({ n: count() }).from(apiKeys).where(eq(apiKeys.createdFromRole, row.name));
  return { role: roleView(row, n), etag: roleEtag(row) };
}

/** The grant fields of a role, as audit entries show and diff them. */
export function roleSettings(grants: Partial<KeyGrants>): Record<string, unknown> {
  const complete = completeGrants(grants);
  return Object.fromEntries(GRANT_FIELDS.map((field) => [field, complete[field]]));
}
