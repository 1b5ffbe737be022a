import type { WorkspaceMemberRow, WorkspaceRow } from '../../store/schema/index.ts';
import { formatDate } from '../../time.ts';

export interface WorkspaceView {
  name: string;
  description: string | null;
  created_at: string;
  created_by: string | null;
  /** A count. */
  members: number;
}

export interface WorkspaceRead {
  workspace: WorkspaceView;
  etag: string;
}

export const workspaceEtag = (row: Pick<WorkspaceRow, 'id' | 'revision'>) => `"w${row.id}.${row.revision}"`;

export const workspaceView = (row: WorkspaceRow, members: number): WorkspaceView => ({
  name: row.name,
  description: row.description,
  created_at: formatDate(row.createdAt),
  created_by: row.createdBy,
  members,
});

export const workspaceRead = (row: WorkspaceRow, members: number): WorkspaceRead => ({
  workspace: workspaceView(row, members),
  etag: workspaceEtag(row),
});

export interface MemberView {
  admin: string;
  role: string;
  created_at: string;
  added_by: string | null;
}

export const memberView = (row: WorkspaceMemberRow): MemberView => ({
  admin: row.admin,
  role: row.role,
  created_at: formatDate(row.createdAt),
  added_by: row.addedBy,
});
