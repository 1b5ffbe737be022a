/**
 * Administrator roles and what each may do (spec, Authentication 11; the
 * table is documented in docs/reference/administrators.md). A capability is
 * `<area>.<verb>`; a missing one answers 403 `forbidden`.
 */
export const ADMIN_ROLES = ['owner', 'admin', 'developer', 'auditor'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

export const CAPABILITIES = [
  /** Run saved queries (drafts included) and ad-hoc SQL, like the server key. */
  'data.run',
  'queries.read',
  'queries.write',
  'connections.read',
  'connections.write',
  'collections.read',
  'collections.write',
  'keys.read',
  'keys.write',
  'roles.read',
  'roles.write',
  'history.read',
  'history.forget',
  'audit.read',
  'cache.read',
  'cache.write',
  'usage.read',
  'settings.read',
  'secrets.rotate',
  /** Write a `${VAR}` reference (origin/secrets/references.ts): a server-wide owner's alone. */
  'secrets.reference',
  'alerts.read',
  'examples.write',
  'destinations.read',
  'destinations.write',
  'exports.read',
  'exports.write',
  'exports.run',
  'config.read',
  'config.apply',
  'administrators.read',
  'administrators.write',
  'workspaces.write',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

const READ: Capability[] = CAPABILITIES.filter((c) => c.endsWith('.read'));

const OWNER_ONLY: Capability[] = ['administrators.write', 'workspaces.write', 'config.apply', 'secrets.rotate', 'secrets.reference', 'history.forget'];

const ROLE_CAPABILITIES: Record<AdminRole, ReadonlySet<Capability>> = {
  owner: new Set(CAPABILITIES),
  admin: new Set(CAPABILITIES.filter((c) => !OWNER_ONLY.includes(c))),
  developer: new Set<Capability>([
    ...READ,
    'data.run',
    'queries.write',
    'collections.write',
    'cache.write',
    'exports.write',
    'exports.run',
  ]),
  auditor: new Set<Capability>(READ),
};

/** The capabilities of a role, in the table's order. */
export function capabilitiesOf(role: AdminRole | null): Capability[] {
  if (role === null) return [];
  return CAPABILITIES.filter((c) => ROLE_CAPABILITIES[role].has(c));
}

export function roleHas(role: AdminRole | null, capability: Capability): boolean {
  return role !== null && ROLE_CAPABILITIES[role].has(capability);
}

export const isAdminRole = (value: unknown): value is AdminRole =>
  typeof value === 'string' && (ADMIN_ROLES as readonly string[]).includes(value);
