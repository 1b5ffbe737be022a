import type { KeyGrants } from '../../shared/access/grants.ts';
import type { AdminRole } from './capabilities.ts';

/**
 * How the caller authenticated: `open` (no key configured: everyone is the
 * administrator), `break-glass` (the server key `SLUICE_API_KEY`), `key` (a
 * scoped API key), `token` (a named administrator's token), `anonymous` (no
 * valid credential, only possible on a public endpoint).
 */
export type CallerVia = 'open' | 'break-glass' | 'key' | 'token' | 'anonymous';

/** A scoped key that authenticated, with the grants it runs under. */
export interface CallerKey {
  id: number;
  name: string;
  /** Where the key lives: its grants reach only this workspace's connections and queries. */
  workspace: string;
  grants: KeyGrants;
}

/** A named administrator that authenticated with one of their tokens. */
export interface CallerAdministrator {
  id: number;
  name: string;
  /** Server-wide role; null means only workspace memberships give roles. */
  role: AdminRole | null;
  /** Role per workspace the administrator is a member of. */
  memberships: Record<string, AdminRole>;
  tokenId: string;
}

/** Who is calling. */
export interface Caller {
  /** `admin` for the server key, the key's or administrator's own name, or `-` (open server, anonymous). */
  name: string;
  /** Unrestricted: the server key, or anyone on an open server. Reaches every query, runs drafts, holds every capability. */
  admin: boolean;
  via: CallerVia;
  key?: CallerKey;
  administrator?: CallerAdministrator;
}
