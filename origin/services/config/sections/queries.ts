import { asc, eq, inArray } from 'drizzle-orm';
import { diffFields } from '../../../audit/diff.ts';
import { badRequest } from '../../../errors.ts';
import { type QueryRow, type QueryVersionRow, queries, queryVersions } from '../../../store/schema/index.ts';
import { addVersion } from '../../queries/add-version.ts';
import { createQuery } from '../../queries/create.ts';
import { createQueries } from '../../queries/create-many.ts';
import { deleteQuery } from '../../queries/delete.ts';
import type { VersionFields } from '../../queries/fields.ts';
import { versionsOf } from '../../queries/lookup.ts';
import { moveQuery } from '../../queries/move.ts';
import { publishVersion } from '../../queries/publish.ts';
import { setCacheTtl } from '../../queries/set-cache-ttl.ts';
import { type Section, assertInWorkspace, recordCreate, recordUpdate } from '../context.ts';
import type { QueryEntry } from '../file.ts';
import type { FieldChange } from '../plan.ts';
import { type ConfigProblem, problemsOf } from '../problems.ts';
import { nextTurn } from '../transaction.ts';

/** Names (or ids) per statement when the section is read up front: far below the 65,535 parameters a statement takes. */
const NAMES_PER_READ = 1_000;

/** What a version runs and serves, as the file states it and as the plan compares it. */
interface Definition {
  query_type: string;
  sql: string | null;
  mongo_collection: string | null;
  mongo_filter: Record<string, unknown> | null;
  mongo_projection: Record<string, unknown> | null;
  mongo_sort: Record<string, unknown> | null;
  parameters: Record<string, unknown>;
  description: string | null;
  connection_name: string | null;
  tags: string[];
  cache_ttl: number | null;
}

const stored = (row: QueryVersionRow): Definition => ({
  query_type: row.queryType,
  sql: row.sql,
  mongo_collection: row.mongo?.collection ?? null,
  mongo_filter: row.mongo?.filter ?? null,
  mongo_projection: row.mongo?.projection ?? null,
  mongo_sort: row.mongo?.sort ?? null,
  parameters: row.parameters,
  description: row.description,
  connection_name: row.connectionName,
  tags: row.tags,
  cache_ttl: row.cacheTtl,
});

const wanted = (entry: QueryEntry): Definition => ({
  query_type: entry.query_type ?? 'sql',
  sql: entry.sql ?? null,
  mongo_collection: entry.mongo_collection ?? null,
  mongo_filter: entry.mongo_filter ?? null,
  mongo_projection: entry.mongo_projection ?? null,
  mongo_sort: entry.mongo_sort ?? null,
  parameters: entry.parameters ?? {},
  description: entry.description ?? null,
  connection_name: entry.connection_name ?? null,
  tags: entry.tags ?? [],
  cache_ttl: entry.cache_ttl ?? null,
});

/** Whether the entry states a draft (`published: false`): a query never published. */
const isDraft = (entry: QueryEntry): boolean => entry.published === false;

/** The version body the verbs take: every definition field given, so nothing is carried over from an older version. */
function versionInput(entry: QueryEntry): VersionFields {
  const { name: _name, collection: _collection, published: _published, ...fields } = entry;
  const { mongo_collection, mongo_filter, mongo_projection, mongo_sort, ...definition } = wanted(entry);
  // The other type's fields are left out rather than sent as null, which the verbs would refuse as not applying.
  const mongo = definition.query_type === 'mongo' ? { mongo_collection, mongo_filter, mongo_projection, mongo_sort } : {};
  return { ...fields, ...definition, ...mongo, publish: !isDraft(entry) };
}

/** What the create verbs take: the entry as the API's body, published unless it is a draft. */
function createInput(entry: QueryEntry) {
  const { published: _published, ...fields } = entry;
  return { ...fields, publish: !isDraft(entry) };
}

/** Whether two definitions are the same, `cache_ttl` aside unless `withTtl`; none is never the same. */
function same(a: Definition | null, b: Definition, { withTtl }: { withTtl: boolean }): boolean {
  if (a === null) return false;
  const ttl = withTtl ? {} : { cache_ttl: null };
  return Object.keys(diffFields({ ...a, ...ttl }, { ...b, ...ttl })).length === 0;
}

/** Fields the verbs refuse (document-database fields on a SQL query): sent through them so the refusal is reported. */
const refusedFields = (entry: QueryEntry): boolean =>
  entry.query_type !== 'mongo' && [entry.mongo_collection, entry.mongo_filter, entry.mongo_projection, entry.mongo_sort].some((field) => field !== undefined);

/**
 * `queries`: an entry is the query's published definition and its
 * collection. A changed definition is a new published version (or the
 * publication of the newest version when that one already is it); a change
 * of `cache_ttl` alone retunes the published version in place, and of the
 * collection alone moves the query: neither is a new version. A draft
 * entry (`published: false`) is the newest version of a query never
 * published: a changed definition is a new draft version. New queries are
 * made together (`createQueries`), a batch at a time.
 */
export const queriesSection: Section<QueryEntry> = {
  kind: 'queries',

  async prepare(deps, ctx, entries) {
    const rows = new Map<string, QueryRow>();
    const versions = new Map<number, QueryVersionRow[]>();
    for (let start = 0; start < entries.length; start += NAMES_PER_READ) {
      const names = entries.slice(start, start + NAMES_PER_READ).map((entry) => entry.name);
      for (const row of await deps.store.db.select().from(queries).where(inArray(queries.name, names))) rows.set(row.name, row);
      await nextTurn();
    }
    const ids = [...rows.values()].map((row) => row.id);
    for (let start = 0; start < ids.length; start += NAMES_PER_READ) {
      const chunk = ids.slice(start, start + NAMES_PER_READ);
      const found = await deps.store.db.select().from(queryVersions).where(inArray(queryVersions.queryId, chunk)).orderBy(asc(queryVersions.queryId), asc(queryVersions.version));
      for (const version of found) versions.set(version.queryId, [...(versions.get(version.queryId) ?? []), version]);
      await nextTurn();
    }
    return (entry) => {
      const current = rows.get(entry.name);
      if (!current) return 'absent';
      const held = versions.get(current.id);
      const compared = isDraft(entry) ? (current.publishedVersion === null ? held?.at(-1) : undefined) : held?.find((v) => v.version === current.publishedVersion);
      const unchanged =
        current.workspace === ctx.workspace &&
        compared !== undefined &&
        !refusedFields(entry) &&
        same(stored(compared), wanted(entry), { withTtl: true }) &&
        (entry.collection ?? null) === current.collection;
      return unchanged ? 'unchanged' : undefined;
    };
  },

  async upsert(deps, ctx, entry, _path, known) {
    const [current] = known === 'absent' ? [] : await deps.store.db.select().from(queries).where(eq(queries.name, entry.name));
    if (!current) {
      await createQuery(deps, ctx.actor, createInput(entry), ctx.workspace, { read: false });
      return recordCreate(ctx, 'queries', entry.name);
    }
    assertInWorkspace(ctx, 'queries', entry.name, current.workspace);
    const versions = await versionsOf(deps.store.db, current.id);
    const published = versions.find((v) => v.version === current.publishedVersion);
    const newest = versions.at(-1);
    const target = wanted(entry);
    const before = published ? stored(published) : null;
    const fields: Record<string, FieldChange> = {};

    if (isDraft(entry)) {
      if (published) {
        throw badRequest(`query "${entry.name}" is published: a file cannot make it a draft again`, {
          errors: { published: 'the query is published on this server: remove `published: false`, or delete the query first' },
        });
      }
      const drafted = newest ? stored(newest) : null;
      if (refusedFields(entry) || !same(drafted, target, { withTtl: true })) {
        Object.assign(fields, diffFields({ ...drafted }, { ...target }));
        fields.version = { from: newest?.version ?? null, to: (await addVersion(deps, ctx.actor, entry.name, versionInput(entry), { workspace: ctx.workspace })).version };
      }
    } else if (refusedFields(entry) || !published || !same(before, target, { withTtl: false })) {
      Object.assign(fields, diffFields({ ...before }, { ...target }));
      const draft = newest && newest.version !== current.publishedVersion && !refusedFields(entry) && same(stored(newest), target, { withTtl: true }) ? newest : null;
      const version = draft
        ? (await publishVersion(deps, ctx.actor, entry.name, draft.version, { workspace: ctx.workspace }), draft.version)
        : (await addVersion(deps, ctx.actor, entry.name, versionInput(entry), { workspace: ctx.workspace })).version;
      fields.published_version = { from: current.publishedVersion, to: version };
    } else if (published.cacheTtl !== target.cache_ttl) {
      await setCacheTtl(deps, ctx.actor, entry.name, published.version, target.cache_ttl, { workspace: ctx.workspace });
      fields.cache_ttl = { from: published.cacheTtl, to: target.cache_ttl };
    }

    const collection = entry.collection ?? null;
    if (collection !== current.collection) {
      await moveQuery(deps, ctx.actor, entry.name, collection, { workspace: ctx.workspace });
      fields.collection = { from: current.collection, to: collection };
    }
    recordUpdate(ctx, 'queries', entry.name, fields);
  },

  async createAll(deps, ctx, batch, between) {
    const refused = await createQueries(deps, ctx.actor, batch.map(({ entry }) => createInput(entry)), ctx.workspace, { between });
    const problems: ConfigProblem[] = [];
    for (const [i, { entry, path }] of batch.entries()) {
      const refusal = refused.get(i);
      if (refusal) problems.push(...problemsOf(refusal, path));
      else recordCreate(ctx, 'queries', entry.name);
    }
    return problems;
  },

  async remove(deps, ctx, name) {
    const [current] = await deps.store.db.select({ id: queries.id }).from(queries).where(eq(queries.name, name));
    if (!current) return false;
    await deleteQuery(deps, ctx.actor, name, { workspace: ctx.workspace });
    return true;
  },
};
