import type { Caller } from './caller.ts';
import { type AdminRole, type Capability, capabilitiesOf, roleHas } from './capabilities.ts';

/**
 * What an administrator may do where: the role that applies in a workspace,
 * the capabilities it gives, and which workspaces the caller may see. The
 * break-glass key and anyone on an open server act as owners everywhere.
 * Documented in docs/reference/administrators.md and workspaces.md.
 */

/** Capabilities about the whole server: only a server-wide role gives them, never a workspace membership. */
const SERVER_WIDE_ONLY: ReadonlySet<Capability> = new Set<Capability>([
  'administrators.write',
  'workspaces.write',
  'secrets.rotate',
  'secrets.reference',
  'history.forget',
]);

/** Server-wide roles that see every workspace; other callers see the ones they belong to. */
const SEE_ALL: ReadonlySet<AdminRole> = new Set<AdminRole>(['owner', 'admin', 'auditor']);

export const DEFAULT_WORKSPACE = 'default';

/** The server key or an open server: unrestricted. */
export const isUnrestricted = (caller: Caller): boolean => caller.via === 'open' || caller.via === 'break-glass';

/** An administrator of any kind (not a scoped key, not anonymous). */
export const isAdministrator = (caller: Caller): boolean => isUnrestricted(caller) || caller.via === 'token';

/**
 * The role that applies to the caller in `workspace`: the server-wide role,
 * or when it is null the membership role there; null when neither.
 */
export function roleIn(caller: Caller, workspace: string): AdminRole | null {
  if (isUnrestricted(caller)) return 'owner';
  const administrator = caller.administrator;
  if (caller.via !== 'token' || !administrator) return null;
  return administrator.role ?? administrator.memberships[workspace] ?? null;
}

/** Whether the role in effect comes from a server-wide role rather than a membership. */
export const roleIsServerWide = (caller: Caller): boolean => isUnrestricted(caller) || (caller.administrator?.role ?? null) !== null;

export function holds(caller: Caller, workspace: string, capability: Capability): boolean {
  if (isUnrestricted(caller)) return true;
  if (caller.via !== 'token' || !caller.administrator) return false;
  const role = SERVER_WIDE_ONLY.has(capability) ? caller.administrator.role : roleIn(caller, workspace);
  return roleHas(role, capability);
}

export function capabilitiesIn(caller: Caller, workspace: string): Capability[] {
  if (isUnrestricted(caller)) return capabilitiesOf('owner');
  return capabilitiesOf(roleIn(caller, workspace)).filter((c) => holds(caller, workspace, c));
}

/**
 * Whether the caller may see a workspace: everyone unrestricted, server-wide
 * owners, admins and auditors see all; a member sees theirs; any server-wide
 * role also sees `default`, where it acts without a `/w/` prefix.
 */
export function maySee(caller: Caller, workspace: string): boolean {
  if (isUnrestricted(caller)) return true;
  const administrator = caller.administrator;
  if (caller.via !== 'token' || !administrator) return false;
  if (administrator.role !== null && (SEE_ALL.has(administrator.role) || workspace === DEFAULT_WORKSPACE)) return true;
  return workspace in administrator.memberships;
}

/** Server owners, and the workspace's own owners, manage its members. */
export function managesMembers(caller: Caller, workspace: string): boolean {
  return holds(caller, workspace, 'workspaces.write') || caller.administrator?.memberships[workspace] === 'owner';
}
