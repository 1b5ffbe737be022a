import { eq } from 'drizzle-orm';
import { recordAudit } from '../../audit/record.ts';
import { SluiceError } from '../../errors.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { queries, queryVersions } from '../../store/schema/index.ts';
import { isUniqueViolation } from '../connections/create.ts';
import { assertListedValues } from '../parameter-values/on-save.ts';
import { checkDefinition } from './definition.ts';
import { type CreateFields, type SaveSource, assertValidName, collectionProblems } from './fields.ts';
import { afterQueryChange, announceQueryChange } from './definition-cache.ts';
import { readQuery } from './lookup.ts';
import { type QueryRead, versionSnapshot } from './view.ts';

export const queryExists = (name: string) => new SluiceError('query_exists', `A query named "${name}" already exists`);

/**
 * Saves a new query with its first version: a `save_query` change. Version 1
 * is published when `publish` is true, else a draft (nothing serves at
 * `/q/<name>` yet). The author defaults to the caller's name. The query, the
 * version and the audit entry (a full snapshot) commit together. A `source`
 * other than the API itself is named in the entry (`source: import`).
 */
export async function createQuery(deps: AppDeps, actor: Caller, input: CreateFields, workspace?: string, options?: { source?: SaveSource; read?: true }): Promise<QueryRead>;
/** With `read: false` (a configuration apply, which answers with its plan), the query is not read back. */
export async function createQuery(deps: AppDeps, actor: Caller, input: CreateFields, workspace: string, options: { source?: SaveSource; read: false }): Promise<void>;
export async function createQuery(
  deps: AppDeps,
  actor: Caller,
  input: CreateFields,
  workspace = 'default',
  { source, read = true }: { source?: SaveSource; read?: boolean } = {},
): Promise<QueryRead | void> {
  assertValidName(input.name);
  const definition = await checkDefinition(deps.store.db, input, { problems: collectionProblems(input.collection), workspace });
  await assertListedValues(deps, definition, actor);
  const { name } = input;
  const collection = input.collection ?? null;
  const published = input.publish ?? false;
  const now = new Date();

  try {
    return await afterQueryChange(deps.store, name, deps.store.db.transaction(async (tx) => {
      const [taken] = await tx.select({ id: queries.id }).from(queries).where(eq(queries.name, name));
      if (taken) throw queryExists(name);
      const [row] = await tx
        .insert(queries)
        .values({ name, workspace, collection, publishedVersion: published ? 1 : null, nextVersion: 2, createdAt: now, updatedAt: now })
        .returning();
      const [version] = await tx
        .insert(queryVersions)
        .values({ queryId: row.id, version: 1, ...definition, author: input.author ?? actor.name, createdAt: now })
        .returning();
      await announceQueryChange(tx, name);
      await recordAudit(tx, {
        actor: actor.name,
        action: 'save_query',
        target: name,
        workspace: workspace,
        changes: { ...versionSnapshot(name, version), collection, published, ...(source ? { source } : {}) },
      });
      return read ? readQuery(tx, row) : undefined;
    }));
  } catch (err) {
    // Two creates racing past the check: the unique index decides.
    if (isUniqueViolation(err)) throw queryExists(name);
    throw err;
  }
}
