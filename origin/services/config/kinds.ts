/**
 * The sections of a configuration file, in the order apply makes them
 * (each may name objects of the ones before it); prune deletes in reverse.
 * `descriptions` is keyed by connection; prune deletes the items a listed
 * connection's entry lacks, never a connection's descriptions as a whole.
 */
export const CONFIG_KINDS = ['connections', 'destinations', 'queries', 'roles', 'api_keys', 'exports', 'descriptions'] as const;
export type ConfigKind = (typeof CONFIG_KINDS)[number];

/** The kinds apply makes, changes and prunes: every section. */
export const APPLIED_KINDS = CONFIG_KINDS;
export type AppliedKind = (typeof APPLIED_KINDS)[number];

/** A record of every applied kind, each value made by `make`. */
export const byKind = <T>(make: (kind: AppliedKind) => T): Record<AppliedKind, T> =>
  Object.fromEntries(APPLIED_KINDS.map((kind) => [kind, make(kind)])) as Record<AppliedKind, T>;

/** One object of a kind as messages name it. */
export const KIND_NOUN: Record<ConfigKind, string> = {
  connections: 'connection',
  destinations: 'destination',
  queries: 'query',
  roles: 'role',
  api_keys: 'API key',
  exports: 'export',
  descriptions: "connection's descriptions",
};
