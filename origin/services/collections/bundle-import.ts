import { and, desc, eq } from 'drizzle-orm';
import { canonicalJson } from '../../../shared/cache-key.ts';
import type { ErrorCode } from '../../../shared/errors.ts';
import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import { type StoreDb, storeInTransaction } from '../../store/open.ts';
import { type QueryRow, connections, queries, queryVersions } from '../../store/schema/index.ts';
import { assertNotManaged } from '../config/managed.ts';
import { addVersion } from '../queries/add-version.ts';
import { createQuery } from '../queries/create.ts';
import { type Definition, checkDefinition } from '../queries/definition.ts';
import { afterQueryChange } from '../queries/definition-cache.ts';
import { type VersionFields, assertValidName, collectionNameProblem } from '../queries/fields.ts';
import { type BundleEntry, type OnConflict, type ReadBundle, readBundle } from './bundle-file.ts';

export interface ImportOptions {
  /** What to do with an entry whose name a query already has (default `fail`). */
  onConflict?: OnConflict;
  /** File the queries here instead of the bundle's own collection. */
  collection?: string;
  dryRun?: boolean;
  /** Where new queries are made and existing ones must be. */
  workspace?: string;
}

/** What an import did, or with `dry_run` would do; the same either way. */
export interface ImportReport {
  collection: string;
  dry_run: boolean;
  created: string[];
  /** Existing queries of the collection given a new, published version. */
  new_versions: string[];
  /** Existing queries left alone (`on_conflict: skip`). */
  skipped: string[];
  /** Existing queries whose published newest version is the entry already (`new-version`): nothing to write. */
  unchanged: string[];
  /** A missing connection: the query is imported without a default connection. */
  warnings: string[];
}

type Outcome = 'created' | 'new_versions' | 'skipped' | 'unchanged';

interface Planned {
  entry: BundleEntry;
  fields: VersionFields;
  outcome: Outcome;
}

/**
 * Imports a collection bundle (`collection import`): every entry is checked
 * first (the file's shape, names, each definition by the save's own checks,
 * conflicts with existing queries), and every problem is reported at once
 * with its path in the file (`queries[2].sql`), before anything is written:
 * 400 `invalid_request`, or 409 `query_exists` when conflicts are the only
 * problems. Then, in one transaction, each new query is saved and each
 * `new-version` entry added, published, through the saved-query verbs
 * themselves, audited `save_query` with `source: import`. `new-version`
 * never moves a query: one in another collection (or workspace) is a
 * conflict. A connection the workspace lacks is a warning, and the query is
 * imported without a default connection. Under SLUICE_CONFIG_LOCKED a new
 * version of a query a configuration file manages is refused (409
 * `config_managed` when that is the only problem).
 */
export async function importBundle(deps: AppDeps, actor: Caller, document: unknown, options: ImportOptions = {}): Promise<ImportReport> {
  const bundle = readBundle(document);
  const workspace = options.workspace ?? 'default';
  const onConflict = options.onConflict ?? 'fail';
  const collection = options.collection ?? bundle.collection;
  const problems = { ...bundle.problems };
  if (collection === null) problems.collection ??= 'the bundle names none: pass the collection to import into';
  else {
    const collectionProblem = collectionNameProblem(collection);
    if (collectionProblem) problems.collection = `${JSON.stringify(collection)} ${collectionProblem}`;
  }

  let touched: string[] = [];
  // The verbs' own transactions become savepoints of this one; what they change is dropped from this origin's cache again once it commits.
  return afterQueryChange(
    deps.store,
    () => touched,
    deps.store.db.transaction(async (tx) => {
      const scoped: AppDeps = { ...deps, store: storeInTransaction(deps.store, tx) };
      const warnings: string[] = [];
      const { plan, collection: into } = await planImport(scoped, bundle.entries, problems, { workspace, onConflict, collection }, warnings);
      const report: ImportReport = { collection: into, dry_run: options.dryRun ?? false, created: [], new_versions: [], skipped: [], unchanged: [], warnings };
      for (const { entry, outcome } of plan) report[outcome].push(entry.name);
      if (report.dry_run) return report;
      touched = [...report.created, ...report.new_versions];
      for (const { entry, fields, outcome } of plan) {
        if (outcome === 'created') {
          await createQuery(scoped, actor, { name: entry.name, collection: into, ...fields }, workspace, { source: 'import' });
        } else if (outcome === 'new_versions') {
          await addVersion(scoped, actor, entry.name, fields, { workspace, source: 'import' });
        }
      }
      return report;
    }),
  );
}

/** Each entry's outcome, or the one error listing every problem of the file: the shape's, the collection's and the entries' own. */
async function planImport(
  deps: AppDeps,
  entries: ReadBundle['entries'],
  problems: Record<string, string>,
  { workspace, onConflict, collection }: { workspace: string; onConflict: OnConflict; collection: string | null },
  warnings: string[],
): Promise<{ plan: Planned[]; collection: string }> {
  const tx = deps.store.db;
  /** The code a problem would answer alone, when not `invalid_request`. */
  const codes = new Map<string, ErrorCode>();
  const firstAt = new Map<string, string>();
  const plan: Planned[] = [];
  for (const { at, entry } of entries) {
    const earlier = firstAt.get(entry.name);
    if (earlier !== undefined) {
      problems[`${at}.name`] = `${JSON.stringify(entry.name)} is also the name of ${earlier}: each query appears once`;
      continue;
    }
    firstAt.set(entry.name, at);
    try {
      assertValidName(entry.name);
    } catch (err) {
      problems[`${at}.name`] = (err as Error).message;
      continue;
    }
    const fields = await entryFields(tx, entry, workspace, (problem) => warnings.push(`${at} (${entry.name}): ${problem}`));
    let definition: Definition;
    try {
      definition = await checkDefinition(tx, fields, { workspace });
    } catch (err) {
      const errors = err instanceof SluiceError ? (err.extras.errors as Record<string, string> | undefined) : undefined;
      if (!errors) throw err;
      for (const [field, problem] of Object.entries(errors)) problems[`${at}.${field}`] = problem;
      continue;
    }
    const [existing] = await tx.select().from(queries).where(eq(queries.name, entry.name));
    const outcome = existing ? await conflictOutcome(tx, existing, definition, { workspace, onConflict, collection }) : 'created';
    if (typeof outcome === 'object') {
      problems[`${at}.name`] = outcome.conflict;
      codes.set(`${at}.name`, 'query_exists');
      continue;
    }
    if (outcome === 'new_versions') {
      try {
        await assertNotManaged(deps, 'queries', entry.name);
      } catch (err) {
        if (!(err instanceof SluiceError)) throw err;
        problems[`${at}.name`] = err.message;
        codes.set(`${at}.name`, err.code);
        continue;
      }
    }
    plan.push({ entry, fields, outcome });
  }
  const paths = Object.keys(problems);
  if (paths.length > 0 || collection === null) {
    const summary = paths.map((path) => `${path}: ${problems[path]}`).join('; ');
    // Conflicts alone answer 409 query_exists; locked managed queries alone 409 config_managed.
    const shared = codes.get(paths[0]!);
    const code = shared && paths.every((path) => codes.get(path) === shared) ? shared : 'invalid_request';
    const advice = code === 'query_exists' && onConflict === 'fail' ? ': on_conflict skip leaves existing queries alone, new-version adds a version to those of the collection' : '';
    throw new SluiceError(code, `Nothing was imported${advice}. ${summary}`, { errors: problems });
  }
  return { plan, collection };
}

/**
 * The entry as a published version's fields, every field given (a field the
 * entry leaves out is cleared, not carried over from an existing version);
 * a connection the workspace lacks is dropped with a warning.
 */
async function entryFields(tx: StoreDb, entry: BundleEntry, workspace: string, warn: (problem: string) => void): Promise<VersionFields> {
  let connection = entry.connection_name ?? null;
  if (typeof connection === 'string' && connection !== '') {
    const [found] = await tx
      .select({ id: connections.id })
      .from(connections)
      .where(and(eq(connections.name, connection), eq(connections.workspace, workspace)));
    if (!found) {
      warn(`no connection named ${JSON.stringify(connection)} in workspace ${JSON.stringify(workspace)}: imported without a default connection; set one before running it`);
      connection = null;
    }
  }
  return {
    sql: entry.sql,
    description: entry.description ?? null,
    tags: entry.tags ?? null,
    parameters: entry.parameters ?? null,
    connection_name: connection,
    cache_ttl: entry.cache_ttl ?? null,
    publish: true,
  };
}

const where = (row: Pick<QueryRow, 'collection' | 'workspace'>) =>
  `${row.collection === null ? 'in no collection' : `in collection ${JSON.stringify(row.collection)}`}${row.workspace === 'default' ? '' : ` of workspace ${JSON.stringify(row.workspace)}`}`;

/** What `onConflict` makes of an entry whose name `existing` has: an outcome, or a conflict to report. */
async function conflictOutcome(
  tx: StoreDb,
  existing: QueryRow,
  definition: Definition,
  { workspace, onConflict, collection }: { workspace: string; onConflict: OnConflict; collection: string | null },
): Promise<Outcome | { conflict: string }> {
  const name = JSON.stringify(existing.name);
  if (onConflict === 'skip') return 'skipped';
  if (onConflict === 'fail') return { conflict: `a query named ${name} already exists (${where(existing)})` };
  if (existing.workspace !== workspace || existing.collection !== collection) {
    return { conflict: `a query named ${name} already exists ${where(existing)}: new-version never moves a query from another collection; rename the entry or move the query first` };
  }
  const [newest] = await tx.select().from(queryVersions).where(eq(queryVersions.queryId, existing.id)).orderBy(desc(queryVersions.version)).limit(1);
  const same =
    newest !== undefined &&
    existing.publishedVersion === newest.version &&
    newest.sql === definition.sql &&
    newest.description === definition.description &&
    newest.connectionName === definition.connectionName &&
    newest.cacheTtl === definition.cacheTtl &&
    canonicalJson(newest.tags) === canonicalJson(definition.tags) &&
    canonicalJson(newest.parameters) === canonicalJson(definition.parameters);
  return same ? 'unchanged' : 'new_versions';
}
