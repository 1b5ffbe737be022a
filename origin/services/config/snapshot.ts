import { and, eq } from 'drizzle-orm';
import { completeGrants } from '../../../shared/access/grants-input.ts';
import { GRANT_FIELDS, type KeyGrants, emptyGrants } from '../../../shared/access/grants.ts';
import { DEFAULT_WORKSPACE } from '../../access/administration.ts';
import { canonicalJson } from '../../audit/canonical-json.ts';
import type { AppDeps } from '../../deps.ts';
import { ENV_REFERENCE } from '../../secrets/passwords.ts';
import type { StoreDb } from '../../store/open.ts';
import { apiKeys, connections, destinations, exports, queries, roles } from '../../store/schema/index.ts';
import { itemsOf } from '../descriptions/read.ts';
import { byName } from '../collections/lookup.ts';
import { maskOptions } from '../connections/view.ts';
import { DEFAULT_PATH } from '../exports/fields.ts';
import { rowFields as exportFields } from '../exports/view.ts';
import { grantsValidIn } from '../keys/grant-names.ts';
import { versionsOf } from '../queries/lookup.ts';
import { servingVersion } from '../queries/view.ts';
import { CONFIG_FORMAT, CONFIG_FORMAT_VERSION, type ConfigFile } from './file.ts';
import { APPLIED_KINDS, type AppliedKind } from './kinds.ts';

export interface SnapshotOptions {
  /** Sections to write; default every kind. */
  kinds?: AppliedKind[];
  /** The workspace whose objects are written; default `default`. */
  workspace?: string;
  /** Include the examples' objects (connection, queries, roles, keys); default false. */
  examples?: boolean;
}

type Entry = Record<string, unknown>;

/** The entry without fields at the value a new object gets, so a file says only what differs. */
function withoutDefaults(entry: Entry, defaults: Entry): Entry {
  return Object.fromEntries(Object.entries(entry).filter(([field, value]) => value !== undefined && canonicalJson(value) !== canonicalJson(defaults[field] ?? null)));
}

/** Upper-case letters, digits and `_`: a variable name made from an object's name. */
const variablePart = (name: string): string => name.toUpperCase().replace(/[^A-Z0-9]+/g, '_');

/**
 * A password as a file may hold it: a `${VAR}` reference as stored; a
 * literal or encrypted one as a placeholder named after the object, for the
 * operator to set where the file is applied.
 */
function passwordOf(stored: string | null, placeholder: string): string | null {
  if (stored === null || ENV_REFERENCE.test(stored)) return stored;
  return `\${${placeholder}}`;
}

const grantEntry = (grants: KeyGrants): Entry => {
  const complete = completeGrants(grants);
  return withoutDefaults(Object.fromEntries(GRANT_FIELDS.map((field) => [field, complete[field]])), emptyGrants() as unknown as Entry);
};

async function connectionEntries(db: StoreDb, workspace: string, examples: boolean): Promise<Entry[]> {
  const rows = await db.select().from(connections).where(eq(connections.workspace, workspace));
  return rows
    .filter((row) => examples || !row.example)
    .map((row) => ({
      name: row.name,
      ...withoutDefaults(
        {
          db: row.db,
          host: row.host,
          port: row.port,
          user: row.user,
          password: passwordOf(row.password, `SLUICE_REF_PW_${variablePart(row.name)}`),
          database: row.database,
          active: row.active,
          // A password inside a JDBC URL stored before it was refused: masked, so applying the file names it.
          options: maskOptions(row.options),
        },
        { active: true, options: {} },
      ),
    }));
}

async function destinationEntries(db: StoreDb, workspace: string): Promise<Entry[]> {
  const rows = await db.select().from(destinations).where(eq(destinations.workspace, workspace));
  return rows.map((row) => ({
    name: row.name,
    url: row.url,
    ...withoutDefaults({ region: row.region, endpoint: row.endpoint, user: row.user, password: passwordOf(row.password, `SLUICE_REF_DESTINATION_PW_${variablePart(row.name)}`) }, {}),
  }));
}

/** A query's published definition, else (a draft) its newest version's, marked `published: false`. */
async function queryEntries(db: StoreDb, workspace: string, examples: boolean): Promise<Entry[]> {
  const rows = (await db.select().from(queries).where(eq(queries.workspace, workspace))).filter((row) => examples || !row.example);
  const entries: Entry[] = [];
  for (const row of rows) {
    const version = servingVersion(row.publishedVersion, await versionsOf(db, row.id));
    if (!version) continue;
    const mongo = version.queryType === 'mongo' ? version.mongo : null;
    if (!mongo && version.sql === null) continue;
    entries.push({
      name: row.name,
      ...withoutDefaults({ collection: row.collection, description: version.description }, {}),
      ...(mongo
        ? {
            query_type: 'mongo',
            mongo_collection: mongo.collection,
            ...withoutDefaults({ mongo_filter: mongo.filter, mongo_projection: mongo.projection, mongo_sort: mongo.sort }, {}),
          }
        : { sql: version.sql }),
      ...withoutDefaults(
        { parameters: version.parameters, connection_name: version.connectionName, tags: version.tags, cache_ttl: version.cacheTtl },
        { parameters: {}, tags: [] },
      ),
      ...(row.publishedVersion === null ? { published: false } : {}),
    });
  }
  return entries;
}

async function roleEntries(db: StoreDb, workspace: string, examples: boolean): Promise<Entry[]> {
  const rows = (await db.select().from(roles).where(eq(roles.workspace, workspace))).filter((row) => examples || !row.example);
  return rows.map((row) => ({ name: row.name, ...grantEntry(row.grants) }));
}

/**
 * Keys with their current `secret_sha256`. A key made from a role whose
 * grants it still holds is written with `role` (which then stays live);
 * any other with its own grants.
 */
async function keyEntries(db: StoreDb, workspace: string, examples: boolean): Promise<Entry[]> {
  const rows = (await db.select().from(apiKeys).where(eq(apiKeys.workspace, workspace))).filter((row) => examples || !row.example);
  const entries: Entry[] = [];
  for (const row of rows) {
    const [role] = row.createdFromRole
      ? await db.select().from(roles).where(and(eq(roles.name, row.createdFromRole), eq(roles.workspace, workspace)))
      : [];
    const followsRole = role !== undefined && canonicalJson(await grantsValidIn(db, workspace, completeGrants(role.grants))) === canonicalJson(completeGrants(row.grants));
    entries.push({
      name: row.name,
      secret_sha256: row.secretHash,
      ...(followsRole ? { role: role.name } : grantEntry(row.grants)),
      ...withoutDefaults({ expires_at: row.expiresAt, active: row.active }, { active: true }),
    });
  }
  return entries;
}

/** A connection's notes and items (a table's own with no `column`), for connections that have any. */
async function descriptionEntries(db: StoreDb, workspace: string, examples: boolean): Promise<Entry[]> {
  const rows = (await db.select().from(connections).where(eq(connections.workspace, workspace))).filter((row) => examples || !row.example);
  const entries: Entry[] = [];
  for (const row of rows) {
    const items = (await itemsOf(db, row.id)).map(({ table, column, description }) => (column === null ? { table, description } : { table, column, description }));
    if (items.length === 0 && row.notes === null) continue;
    entries.push({ name: row.name, ...(row.notes === null ? {} : { notes: row.notes }), ...(items.length > 0 ? { items } : {}) });
  }
  return entries;
}

async function exportEntries(db: StoreDb, workspace: string): Promise<Entry[]> {
  const rows = await db.select().from(exports).where(eq(exports.workspace, workspace));
  return rows.map((row) => {
    const { query, format, destination, ...settings } = exportFields(row);
    return { name: row.name, query, format, destination, ...withoutDefaults(settings, { params: {}, path: DEFAULT_PATH, skip_empty: true }) };
  });
}

/**
 * What the server holds in a workspace as a configuration file that applies
 * back to the same state. Passwords stay `${VAR}` references; a literal or
 * encrypted one is written as a placeholder named after the object
 * (`${SLUICE_REF_PW_<CONNECTION>}`, `${SLUICE_REF_DESTINATION_PW_<DESTINATION>}`),
 * and applying the file warns while that variable is unset. Keys carry
 * their current `secret_sha256`. Descriptions are keyed by connection. The
 * examples' objects (connection and its descriptions, queries, role, keys)
 * are left out unless asked for.
 */
export async function snapshotConfig(deps: AppDeps, options: SnapshotOptions = {}): Promise<ConfigFile> {
  const workspace = options.workspace ?? DEFAULT_WORKSPACE;
  const kinds = options.kinds ?? [...APPLIED_KINDS];
  const examples = options.examples ?? false;
  const read: Record<AppliedKind, (db: StoreDb) => Promise<Entry[]>> = {
    connections: (db) => connectionEntries(db, workspace, examples),
    destinations: (db) => destinationEntries(db, workspace),
    queries: (db) => queryEntries(db, workspace, examples),
    roles: (db) => roleEntries(db, workspace, examples),
    api_keys: (db) => keyEntries(db, workspace, examples),
    exports: (db) => exportEntries(db, workspace),
    descriptions: (db) => descriptionEntries(db, workspace, examples),
  };
  const file: Record<string, unknown> = { format: CONFIG_FORMAT, format_version: CONFIG_FORMAT_VERSION };
  if (workspace !== DEFAULT_WORKSPACE) file.workspace = workspace;
  // One view of the store for the whole file.
  await deps.store.db.transaction(
    async (tx) => {
      for (const kind of APPLIED_KINDS) {
        if (!kinds.includes(kind)) continue;
        const entries = (await read[kind](tx)).sort((a, b) => byName(String(a.name), String(b.name)));
        // `descriptions` is keyed by connection; every other section is a list.
        file[kind] = kind === 'descriptions' ? Object.fromEntries(entries.map(({ name, ...entry }) => [name, entry])) : entries;
      }
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
  return file as ConfigFile;
}
