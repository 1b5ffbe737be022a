import { eq, inArray } from 'drizzle-orm';
import type { Dialect } from '../../drivers/types.ts';
import { badRequest } from '../../errors.ts';
import { documentMarkers } from '../documents/bind.ts';
import { checkDocumentParts } from '../documents/query.ts';
import { inspect } from '../../sql/index.ts';
import type { StoreDb } from '../../store/open.ts';
import { type StoredMongoQuery, connections } from '../../store/schema/index.ts';
import { RESERVED_NAMES, parseDefinitions } from '../../../shared/parameters/index.ts';
import { CACHE_TTL_PROBLEM, MAX_CACHE_TTL, type VersionFields } from './fields.ts';

/** A document query's definition: parameters bind into `filter` as values. */
export type MongoDefinition = StoredMongoQuery;

/** What one version holds once its definition passed the checks. */
export interface Definition {
  queryType: 'sql' | 'mongo';
  /** SQL queries only. */
  sql: string | null;
  /** Document queries only. */
  mongo: MongoDefinition | null;
  /** As sent (type names or rule objects): stored as saved, described on output. */
  parameters: Record<string, unknown>;
  description: string | null;
  connectionName: string | null;
  tags: string[];
  cacheTtl: number | null;
}

/** Legacy `{name}` text placeholders, as `sql/legacy.ts` substitutes them. */
const LEGACY_PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const MONGO_FIELDS = ['mongo_collection', 'mongo_filter', 'mongo_projection', 'mongo_sort'] as const;
export const MONGO_NAMES = { collection: 'mongo_collection', filter: 'mongo_filter', projection: 'mongo_projection', sort: 'mongo_sort' } as const;

/** The SQL is analysed in the default connection's dialect; with none, in Postgres's (the analysis differs only in quoting details). */
const DEFAULT_DIALECT: Dialect = 'postgres';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a definition's check needs of its default connection. */
type ConnectionFacts = { db: string; workspace: string };
type ConnectionOf = (name: string) => Promise<ConnectionFacts | undefined> | ConnectionFacts | undefined;

async function readConnection(db: StoreDb, name: string): Promise<ConnectionFacts | undefined> {
  const [row] = await db.select({ db: connections.db, workspace: connections.workspace }).from(connections).where(eq(connections.name, name));
  return row;
}

/** The default connections `names` name, read in one statement: a `connectionOf` for `checkDefinition`. */
export async function connectionsNamed(db: StoreDb, names: Array<string | null | undefined | unknown>): Promise<ConnectionOf> {
  const wanted = [...new Set(names.filter((name): name is string => typeof name === 'string' && name !== ''))];
  const rows = wanted.length === 0 ? [] : await db.select({ name: connections.name, db: connections.db, workspace: connections.workspace }).from(connections).where(inArray(connections.name, wanted));
  const found = new Map(rows.map((row) => [row.name, row]));
  return (name) => found.get(name);
}

/**
 * Checks a definition on save. Every problem is collected into one `errors`
 * map keyed by field (a parameter's own problems under `parameters.<name>`),
 * and the whole map is thrown as 400 `invalid_request`: the client fixes
 * everything in one round. `db` looks up the default connection, which must
 * be of the query's `workspace` (and, for `query_type: mongo`, a mongodb
 * connection; for SQL, not one); `problems` are the caller's own findings (a
 * bad collection name) listed with the rest. `connectionOf` finds the default
 * connection instead of a read of its own (`connectionsNamed`: many
 * definitions checked at once).
 */
export async function checkDefinition(
  db: StoreDb,
  input: VersionFields,
  { problems = {}, workspace, connectionOf = (name) => readConnection(db, name) }: { problems?: Record<string, string>; workspace: string; connectionOf?: ConnectionOf },
): Promise<Definition> {
  const errors: Record<string, string> = { ...problems };
  const mongoQuery = input.query_type === 'mongo';
  if (input.query_type !== undefined && input.query_type !== 'sql' && !mongoQuery) {
    errors.query_type = 'must be "sql" (or "mongo" for a document-database query)';
  }
  if (!mongoQuery) {
    for (const field of MONGO_FIELDS) {
      if (input[field] !== undefined) errors[field] = 'applies only to query_type "mongo"';
    }
  }

  // Default connection: must exist when given; its type is the SQL's dialect.
  let connectionName: string | null = null;
  let dialect = DEFAULT_DIALECT;
  if (input.connection_name !== undefined && input.connection_name !== null) {
    if (typeof input.connection_name !== 'string' || input.connection_name === '') {
      errors.connection_name = 'must be the name of an existing connection, or null';
    } else {
      const row = await connectionOf(input.connection_name);
      // A query runs only on connections of its own workspace: another's is named as if it did not exist.
      if (!row || row.workspace !== workspace) {
        errors.connection_name = `no connection named ${JSON.stringify(input.connection_name)} in workspace ${JSON.stringify(workspace)}`;
      } else if (mongoQuery !== (row.db === 'mongodb')) {
        errors.connection_name = mongoQuery
          ? `is a ${row.db} connection: a query of query_type "mongo" runs on a mongodb connection`
          : 'is a mongodb connection: it runs document queries (query_type "mongo"), not SQL';
      } else {
        connectionName = input.connection_name;
        if (!mongoQuery) dialect = row.db as Dialect;
      }
    }
  }

  let sql: string | null = null;
  let mongo: MongoDefinition | null = null;
  let used: Set<string> | null = null;
  if (mongoQuery) {
    // A document query: the find's parts, no SQL; parameters are the filter's ":name" strings.
    if (input.sql !== undefined && input.sql !== null) errors.sql = 'applies only to SQL queries: a mongo query uses mongo_collection, mongo_filter, mongo_projection and mongo_sort';
    const parts = { collection: input.mongo_collection, filter: input.mongo_filter, projection: input.mongo_projection, sort: input.mongo_sort };
    const { problems: partProblems, checked } = checkDocumentParts(parts, MONGO_NAMES);
    Object.assign(errors, partProblems);
    if (checked) {
      mongo = { collection: checked.collection, filter: isPlainObject(input.mongo_filter) ? input.mongo_filter : null, projection: checked.projection, sort: checked.sort };
      used = new Set(documentMarkers(checked.filter));
    }
  } else if (typeof input.sql !== 'string' || input.sql.trim() === '') {
    // SQL: required, exactly one statement; collect the names it uses.
    errors.sql = input.sql === undefined || input.sql === null || input.sql === '' ? 'is required' : 'must be SQL text';
  } else {
    sql = input.sql;
    const info = inspect(sql, dialect);
    if (info.statementCount === 0) errors.sql = 'holds no SQL statement';
    else if (info.statementCount > 1) errors.sql = `must be exactly one statement, the text holds ${info.statementCount}`;
    used = new Set([...info.markers, ...[...sql.matchAll(LEGACY_PLACEHOLDER)].map((m) => m[1])]);
  }

  // Parameters: the shared rule checker, then the save-time rules (reserved, used in the SQL).
  let parameters: Record<string, unknown> = {};
  if (input.parameters !== undefined && input.parameters !== null) {
    if (!isPlainObject(input.parameters)) {
      errors.parameters = 'must be an object mapping each parameter name to a type name or a rule object';
    } else {
      parameters = input.parameters;
      const parsed = parseDefinitions(parameters);
      if ('errors' in parsed) {
        // Keyed by parameter name, '' for the whole object.
        for (const [key, problem] of Object.entries(parsed.errors)) errors[key === '' ? 'parameters' : `parameters.${key}`] ??= problem;
      }
      if ('rules' in parsed) {
        for (const [name, rule] of Object.entries(parsed.rules)) {
          if (mongoQuery && rule.values_query !== undefined) errors[`parameters.${name}`] ??= 'values_query applies to SQL queries: a mongo query lists values with values_field';
          if (!mongoQuery && rule.values_field !== undefined) errors[`parameters.${name}`] ??= 'values_field applies to mongo queries: a SQL query lists values with values_query';
        }
      }
      for (const name of Object.keys(parameters)) {
        if (RESERVED_NAMES.includes(name)) errors[`parameters.${name}`] ??= `"${name}" is a reserved name`;
        else if (used && !used.has(name)) {
          errors[`parameters.${name}`] ??= mongoQuery
            ? `is declared but mongo_filter never uses it (as the string ":${name}")`
            : `is declared but the SQL never uses it (as :${name} or {${name}})`;
        }
      }
    }
  }

  let tags: string[] = [];
  if (input.tags !== undefined && input.tags !== null) {
    if (Array.isArray(input.tags) && input.tags.every((tag) => typeof tag === 'string')) tags = input.tags;
    else errors.tags = 'must be an array of strings';
  }

  let cacheTtl: number | null = null;
  if (input.cache_ttl !== undefined && input.cache_ttl !== null) {
    const ttl = input.cache_ttl;
    if (typeof ttl === 'number' && Number.isInteger(ttl) && ttl >= 0 && ttl <= MAX_CACHE_TTL) cacheTtl = ttl;
    else errors.cache_ttl = CACHE_TTL_PROBLEM;
  }

  const fields = Object.keys(errors);
  if (fields.length > 0) {
    const summary = fields.map((field) => `${field}: ${errors[field]}`).join('; ');
    throw badRequest(`Invalid query definition: ${summary}`, { errors });
  }
  return { queryType: mongoQuery ? 'mongo' : 'sql', sql, mongo, parameters, description: input.description ?? null, connectionName, tags, cacheTtl };
}
