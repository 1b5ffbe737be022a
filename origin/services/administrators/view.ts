import type { AdminTokenRow, AdministratorRow } from '../../store/schema/index.ts';
import { formatDate } from '../../time.ts';

/** An administrator as the API shows one: `tokens` is a count, never a secret. */
export interface AdministratorView {
  name: string;
  role: string | null;
  email: string | null;
  active: boolean;
  created_at: string;
  created_by: string | null;
  last_seen_at: string | null;
  tokens: number;
}

export interface AdministratorRead {
  administrator: AdministratorView;
  etag: string;
}

/** Quoted, from id and revision: a recreated administrator of the same name never matches an old one. */
export const administratorEtag = (row: Pick<AdministratorRow, 'id' | 'revision'>) => `"a${row.id}.${row.revision}"`;

export function administratorView(row: AdministratorRow, tokens: number): AdministratorView {
  return {
    name: row.name,
    role: row.role,
    email: row.email,
    active: row.active,
    created_at: formatDate(row.createdAt),
    created_by: row.createdBy,
    last_seen_at: row.lastSeenAt ? formatDate(row.lastSeenAt) : null,
    tokens,
  };
}

export const administratorRead = (row: AdministratorRow, tokens: number): AdministratorRead => ({
  administrator: administratorView(row, tokens),
  etag: administratorEtag(row),
});

/** What an audit entry keeps of an administrator. */
export const administratorSnapshot = (row: Pick<AdministratorRow, 'name' | 'role' | 'email' | 'active'>) => ({
  name: row.name,
  role: row.role,
  email: row.email,
  active: row.active,
});

/** A token entry: the secret is shown only once, at issue. */
export interface TokenView {
  id: string;
  label: string | null;
  created_at: string;
  expires_at: string | null;
  expired: boolean;
  last_used_at: string | null;
}

export function tokenView(row: AdminTokenRow, now = Date.now()): TokenView {
  return {
    id: row.id,
    label: row.label,
    created_at: formatDate(row.createdAt),
    expires_at: row.expiresAt ? formatDate(row.expiresAt) : null,
    expired: row.expiresAt !== null && row.expiresAt.getTime() < now,
    last_used_at: row.lastUsedAt ? formatDate(row.lastUsedAt) : null,
  };
}
