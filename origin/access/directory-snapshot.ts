import { eq, or, sql } from 'drizzle-orm';
import type { KeyGrants } from '../../shared/access/grants.ts';
import type { StoreDb } from '../store/open.ts';
import { adminTokens, administrators, apiKeys, workspaceMembers, workspaces } from '../store/schema/index.ts';
import { type AdminRole, isAdminRole } from './capabilities.ts';

/**
 * What authentication needs to know, read from the store in one go: scoped
 * keys and administrator tokens by the SHA-256 hex of their secrets, the
 * administrators behind the tokens with their memberships, the workspace
 * names, and whether anything turns authentication on.
 */

export interface DirectoryKey {
  id: number;
  name: string;
  workspace: string;
  grants: KeyGrants;
  active: boolean;
  /** `YYYY-MM-DD`, valid through the end of that day in the server's zone; null never expires. */
  expiresAt: string | null;
}

/** A key found by one of its secrets: the current one, or the previous one while its grace lasts. */
export interface KeyMatch {
  key: DirectoryKey;
  previous: boolean;
  /** End of the previous secret's grace (only when `previous`). */
  previousExpiresAt: Date | null;
}

export interface DirectoryAdministrator {
  id: number;
  name: string;
  role: AdminRole | null;
  active: boolean;
  memberships: Record<string, AdminRole>;
}

export interface DirectoryToken {
  id: string;
  expiresAt: Date | null;
  administrator: DirectoryAdministrator;
}

export class AccessSnapshot {
  constructor(
    private readonly keys: ReadonlyMap<string, KeyMatch>,
    private readonly tokens: ReadonlyMap<string, DirectoryToken>,
    /** Every workspace name. */
    readonly workspaces: ReadonlySet<string>,
    /** Any scoped key exists (active or not: deactivating a key never opens the server). */
    readonly hasKeys: boolean,
    /** Any administrator exists (active or not). */
    readonly hasAdministrators: boolean,
  ) {}

  key(hash: string): KeyMatch | undefined {
    return this.keys.get(hash);
  }

  token(hash: string): DirectoryToken | undefined {
    return this.tokens.get(hash);
  }
}

/**
 * Reads a snapshot. `only` limits the keys and tokens read to those of one
 * secret hash (null: none), for a request served while the directory cannot
 * trust memory; the workspaces and the two flags are always read whole.
 */
export async function readSnapshot(db: StoreDb, only?: { hash: string | null }): Promise<AccessSnapshot> {
  const keyFilter = only === undefined ? undefined : only.hash === null ? sql`false` : or(eq(apiKeys.secretHash, only.hash), eq(apiKeys.previousSecretHash, only.hash));
  const tokenFilter = only === undefined ? undefined : only.hash === null ? sql`false` : eq(adminTokens.secretHash, only.hash);

  const [keyRows, tokenRows, workspaceRows, anyKey, anyAdministrator] = await Promise.all([
    db
      .select({
        id: apiKeys.id,
        name: apiKeys.name,
        workspace: apiKeys.workspace,
        grants: apiKeys.grants,
        active: apiKeys.active,
        expiresAt: apiKeys.expiresAt,
        secretHash: apiKeys.secretHash,
        previousSecretHash: apiKeys.previousSecretHash,
        previousExpiresAt: apiKeys.previousExpiresAt,
      })
      .from(apiKeys)
      .where(keyFilter),
    db
      .select({
        id: adminTokens.id,
        secretHash: adminTokens.secretHash,
        expiresAt: adminTokens.expiresAt,
        adminId: administrators.id,
        adminName: administrators.name,
        role: administrators.role,
        active: administrators.active,
      })
      .from(adminTokens)
      .innerJoin(administrators, eq(administrators.id, adminTokens.administratorId))
      .where(tokenFilter),
    db.select({ name: workspaces.name }).from(workspaces),
    db.select({ id: apiKeys.id }).from(apiKeys).limit(1),
    db.select({ id: administrators.id }).from(administrators).limit(1),
  ]);

  const memberRows =
    tokenRows.length === 0
      ? []
      : await db
          .select({ admin: workspaceMembers.admin, workspace: workspaceMembers.workspace, role: workspaceMembers.role })
          .from(workspaceMembers)
          .where(only === undefined ? undefined : eq(workspaceMembers.admin, tokenRows[0]!.adminName));

  const memberships = new Map<string, Record<string, AdminRole>>();
  for (const row of memberRows) {
    if (!isAdminRole(row.role)) continue;
    const own = memberships.get(row.admin) ?? {};
    own[row.workspace] = row.role;
    memberships.set(row.admin, own);
  }

  const keys = new Map<string, KeyMatch>();
  for (const row of keyRows) {
    const key: DirectoryKey = {
      id: row.id,
      name: row.name,
      workspace: row.workspace,
      grants: row.grants,
      active: row.active,
      expiresAt: row.expiresAt,
    };
    keys.set(row.secretHash, { key, previous: false, previousExpiresAt: null });
    if (row.previousSecretHash) keys.set(row.previousSecretHash, { key, previous: true, previousExpiresAt: row.previousExpiresAt });
  }

  const administratorsById = new Map<number, DirectoryAdministrator>();
  const tokens = new Map<string, DirectoryToken>();
  for (const row of tokenRows) {
    let administrator = administratorsById.get(row.adminId);
    if (!administrator) {
      administrator = {
        id: row.adminId,
        name: row.adminName,
        role: isAdminRole(row.role) ? row.role : null,
        active: row.active,
        memberships: memberships.get(row.adminName) ?? {},
      };
      administratorsById.set(row.adminId, administrator);
    }
    tokens.set(row.secretHash, { id: row.id, expiresAt: row.expiresAt, administrator });
  }

  return new AccessSnapshot(keys, tokens, new Set(workspaceRows.map((w) => w.name)), anyKey.length > 0, anyAdministrator.length > 0);
}
