import { count, eq } from 'drizzle-orm';
import { maySee } from '../../access/administration.ts';
import { SluiceError } from '../../errors.ts';
import type { Caller } from '../../access/caller.ts';
import type { StoreDb } from '../../store/open.ts';
import { type WorkspaceRow, workspaceMembers, workspaces } from '../../store/schema/index.ts';
import { workspaceEtag } from './view.ts';
import { assertIfMatch as assertCurrent } from '../if-match.ts';

export const workspaceNotFound = (name: string) => new SluiceError('workspace_not_found', `Workspace "${name}" not found`);

/**
 * The row of a workspace the caller may see; 404 `workspace_not_found` both
 * when it does not exist and when the caller may not see it.
 */
export async function findWorkspace(db: StoreDb, caller: Caller, name: string, { forUpdate = false } = {}): Promise<WorkspaceRow> {
  if (!maySee(caller, name)) throw workspaceNotFound(name);
  const query = db.select().from(workspaces).where(eq(workspaces.name, name));
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw workspaceNotFound(name);
  return row;
}

export async function memberCount(db: StoreDb, workspace: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(workspaceMembers).where(eq(workspaceMembers.workspace, workspace));
  return Number(row?.n ?? 0);
}

/** `If-Match` against the workspace's current ETag (services/if-match.ts). */
export const assertIfMatch = (ifMatch: string | undefined, row: Pick<WorkspaceRow, 'id' | 'revision' | 'name'>): void =>
  assertCurrent(ifMatch, workspaceEtag(row), `Workspace "${row.name}"`);

export const workspaceProtected = () => new SluiceError('workspace_protected', 'The default workspace always exists: it cannot be deleted');
