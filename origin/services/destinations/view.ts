import type { DestinationRow } from '../../store/schema/index.ts';
import { formatDate } from '../../time.ts';
import { PASSWORD_MASK } from '../connections/fields.ts';
import { maskPassword } from '../connections/view.ts';
import type { DestinationFields } from './fields.ts';

/** A destination as `GET /api/v1/destinations/{name}` shows it: the access key id included, the secret key masked. */
export interface DestinationView {
  name: string;
  url: string;
  region: string | null;
  endpoint: string | null;
  user: string | null;
  password: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** A listing entry: never credentials (no user or password). */
export type DestinationSummary = Omit<DestinationView, 'user' | 'password' | 'created_by'>;

/** A destination read back with the ETag a later `If-Match` must present. */
export interface DestinationRead {
  destination: DestinationView;
  etag: string;
}

/** Quoted, derived from id and revision: a recreated destination of the same name never matches an old one. */
export function destinationEtag(row: Pick<DestinationRow, 'id' | 'revision'>): string {
  return `"d${row.id}.${row.revision}"`;
}

export function destinationView(row: DestinationRow): DestinationView {
  return {
    name: row.name,
    url: row.url,
    region: row.region,
    endpoint: row.endpoint,
    user: row.user,
    password: maskPassword(row.password),
    created_by: row.createdBy,
    created_at: formatDate(row.createdAt),
    updated_at: formatDate(row.updatedAt),
  };
}

export function destinationRead(row: DestinationRow): DestinationRead {
  return { destination: destinationView(row), etag: destinationEtag(row) };
}

export function destinationSummary(row: DestinationRow): DestinationSummary {
  return {
    name: row.name,
    url: row.url,
    region: row.region,
    endpoint: row.endpoint,
    created_at: formatDate(row.createdAt),
    updated_at: formatDate(row.updatedAt),
  };
}

/** The settings part of a row, in the shape the verbs compare and audit. */
export function rowFields(row: DestinationRow): DestinationFields {
  return { url: row.url, region: row.region, endpoint: row.endpoint, user: row.user, password: row.password };
}

/** What an audit entry (create, delete) keeps of a destination: everything but the password, which is never a value (`********` when one is set, even a reference). */
export function auditSnapshot(name: string, fields: DestinationFields): Record<string, unknown> {
  return { name, ...fields, password: fields.password === null ? null : PASSWORD_MASK };
}
