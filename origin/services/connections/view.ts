import type { ConnectionRow, deletedConnections } from '../../store/schema/index.ts';
import { formatDate } from '../../time.ts';
import { ENV_REFERENCE } from '../../secrets/passwords.ts';
import { maskUrlPassword } from './jdbc-url.ts';
import { PASSWORD_MASK, type ConnectionFields } from './fields.ts';
import { shownOptions } from './mongo-uri.ts';
import type { ConnectionUsage, UsageView } from './usage.ts';
import type { PrivilegeView } from './privilege-checks.ts';

/** A connection as `GET /api/v1/connections/{name}` shows it: options and user included, password masked. */
export interface ConnectionView {
  name: string;
  db: string;
  host: string | null;
  port: number | null;
  user: string | null;
  password: string | null;
  database: string | null;
  options: Record<string, unknown>;
  active: boolean;
  example: boolean;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  usage: UsageView;
  /** What the database user may do beyond reading (privilege-checks.ts); empty until `privileges_checked`. */
  warnings: string[];
  privileges_checked: boolean;
}

/** A listing entry: never credentials (no user, password or options, which may hold keys or URLs). */
export interface ConnectionSummary {
  name: string;
  db: string;
  host: string | null;
  port: number | null;
  database: string | null;
  active: boolean;
  example: boolean;
  created_at: string;
  updated_at: string;
  usage: UsageView;
  warnings: string[];
  privileges_checked: boolean;
}

/** A connection read back with the ETag a later `If-Match` must present. */
export interface ConnectionRead {
  connection: ConnectionView;
  etag: string;
}

/** A literal password is `********`; a `${VAR}` reference is shown as written; none is null. */
export function maskPassword(password: string | null): string | null {
  if (password === null) return null;
  return ENV_REFERENCE.test(password) ? password : PASSWORD_MASK;
}

/** Options as responses and audit entries show them: a password inside a JDBC URL masked. */
export function maskOptions(options: Record<string, unknown>): Record<string, unknown> {
  if (typeof options.jdbc_url !== 'string') return options;
  return { ...options, jdbc_url: maskUrlPassword(options.jdbc_url) };
}

/** An update's diff as audit entries and config plans show it: the options on each side with a JDBC URL's password masked. */
export function maskedDiff<T extends Record<string, { from: unknown; to: unknown }>>(changes: T): T {
  const options = changes.options;
  if (!options) return changes;
  const masked = (value: unknown) => (value !== null && typeof value === 'object' ? maskOptions(value as Record<string, unknown>) : value);
  return { ...changes, options: { from: masked(options.from), to: masked(options.to) } };
}

/** Quoted, derived from id and revision: a recreated connection of the same name never matches an old one. */
export function connectionEtag(row: Pick<ConnectionRow, 'id' | 'revision'>): string {
  return `"c${row.id}.${row.revision}"`;
}

export function connectionView(row: ConnectionRow, usage: ConnectionUsage, privileges: PrivilegeView): ConnectionView {
  return {
    name: row.name,
    db: row.db,
    host: row.host,
    port: row.port,
    user: row.user,
    password: maskPassword(row.password),
    database: row.database,
    options: maskOptions(shownOptions(row.db, row.options, maskPassword(row.password))),
    active: row.active,
    example: row.example,
    created_by: row.createdBy,
    created_at: formatDate(row.createdAt),
    updated_at: formatDate(row.updatedAt),
    usage: usage.view(row.name),
    ...privileges,
  };
}

export function connectionRead(row: ConnectionRow, usage: ConnectionUsage, privileges: PrivilegeView): ConnectionRead {
  return { connection: connectionView(row, usage, privileges), etag: connectionEtag(row) };
}

export function connectionSummary(row: ConnectionRow, usage: ConnectionUsage, privileges: PrivilegeView): ConnectionSummary {
  return {
    name: row.name,
    db: row.db,
    host: row.host,
    port: row.port,
    database: row.database,
    active: row.active,
    example: row.example,
    created_at: formatDate(row.createdAt),
    updated_at: formatDate(row.updatedAt),
    usage: usage.view(row.name),
    ...privileges,
  };
}

/** The settings part of a row, in the shape the verbs compare and audit. */
export function rowFields(row: ConnectionRow): ConnectionFields {
  return {
    db: row.db as ConnectionFields['db'],
    host: row.host,
    port: row.port,
    user: row.user,
    password: row.password,
    database: row.database,
    active: row.active,
    options: row.options,
  };
}

/**
 * What an audit entry (create, delete) and the deleted list keep of a
 * connection: everything but the password, which is never a value (`********`
 * when one is set, even a reference).
 */
export function auditSnapshot(name: string, fields: ConnectionFields): Record<string, unknown> {
  return { name, ...fields, options: maskOptions(fields.options), password: fields.password === null ? null : PASSWORD_MASK };
}

/** An entry of `GET /api/v1/connections/deleted`: who deleted it, when and why, and where it pointed. Never credentials. */
export interface DeletedConnectionView {
  name: string;
  db: string | null;
  host: string | null;
  port: number | null;
  database: string | null;
  deleted_at: string;
  deleted_by: string;
  reason: string;
}

export function deletedConnectionView(row: typeof deletedConnections.$inferSelect): DeletedConnectionView {
  const snapshot = row.snapshot;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    name: row.name,
    db: text(snapshot.db),
    host: text(snapshot.host),
    port: typeof snapshot.port === 'number' ? snapshot.port : null,
    database: text(snapshot.database),
    deleted_at: formatDate(row.deletedAt),
    deleted_by: row.deletedBy,
    reason: row.reason,
  };
}
