import { inArray } from 'drizzle-orm';
import type { Caller } from '../../access/caller.ts';
import { recordAuditEntries } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import { queries, queryVersions } from '../../store/schema/index.ts';
import { isUniqueViolation } from '../connections/create.ts';
import { queryExists } from './create.ts';
import { type Definition, checkDefinition, connectionsNamed } from './definition.ts';
import { afterQueryChange, announceQueryChanges } from './definition-cache.ts';
import { type CreateFields, assertValidName, collectionProblems } from './fields.ts';
import { versionSnapshot } from './view.ts';

/** Each query's refusal, by its index in the inputs: the ones not made. */
export type Refusals = Map<number, SluiceError>;

/**
 * `createQuery` for many new queries at once (a configuration apply's
 * creates): each input checked as `createQuery` checks it (default
 * connections read in one statement for all), then every query that passed
 * made in one transaction of a few statements: the query rows, their first
 * versions, one change announcement, and one `save_query` audit entry per
 * query, as `createQuery` writes it. A refused input (its definition, or a
 * name already taken) is not made and does not stop the others. `between`
 * runs after each input's check and each statement: a caller lets other
 * requests in there (on the embedded store a statement resolves without
 * I/O, so the transaction alone would otherwise run in one turn).
 */
export async function createQueries(
  deps: AppDeps,
  actor: Caller,
  inputs: CreateFields[],
  workspace: string,
  { between = async () => {} }: { between?: () => Promise<void> } = {},
): Promise<Refusals> {
  const refused: Refusals = new Map();
  const connectionOf = await connectionsNamed(deps.store.db, inputs.map((input) => input.connection_name));
  const checked: Array<{ index: number; input: CreateFields; definition: Definition }> = [];
  for (const [index, input] of inputs.entries()) {
    try {
      assertValidName(input.name);
      const definition = await checkDefinition(deps.store.db, input, { problems: collectionProblems(input.collection), workspace, connectionOf });
      checked.push({ index, input, definition });
    } catch (err) {
      if (!(err instanceof SluiceError)) throw err;
      refused.set(index, err);
    }
    await between();
  }
  if (checked.length === 0) return refused;
  const names = checked.map(({ input }) => input.name);
  const now = new Date();

  try {
    await afterQueryChange(deps.store, () => names, deps.store.db.transaction(async (tx) => {
      const taken = new Set((await tx.select({ name: queries.name }).from(queries).where(inArray(queries.name, names))).map((row) => row.name));
      const fresh = checked.filter(({ index, input }) => {
        if (!taken.has(input.name)) return true;
        refused.set(index, queryExists(input.name));
        return false;
      });
      if (fresh.length === 0) return;
      await between();
      const rows = await tx
        .insert(queries)
        .values(fresh.map(({ input }) => ({ name: input.name, workspace, collection: input.collection ?? null, publishedVersion: input.publish ? 1 : null, nextVersion: 2, createdAt: now, updatedAt: now })))
        .returning({ id: queries.id, name: queries.name });
      const idOf = new Map(rows.map((row) => [row.name, row.id]));
      await between();
      const versions = await tx
        .insert(queryVersions)
        .values(fresh.map(({ input, definition }) => ({ queryId: idOf.get(input.name)!, version: 1, ...definition, author: input.author ?? actor.name, createdAt: now })))
        .returning();
      const versionOf = new Map(versions.map((version) => [version.queryId, version]));
      await between();
      await announceQueryChanges(tx, fresh.map(({ input }) => input.name));
      await recordAuditEntries(
        tx,
        fresh.map(({ input }) => ({
          actor: actor.name,
          action: 'save_query',
          target: input.name,
          workspace,
          changes: { ...versionSnapshot(input.name, versionOf.get(idOf.get(input.name)!)!), collection: input.collection ?? null, published: input.publish ?? false },
        })),
      );
    }));
  } catch (err) {
    // A query made by another caller between the check and the insert: the unique index decides, for the whole batch.
    if (isUniqueViolation(err)) throw new SluiceError('query_exists', `A query named in this batch was made meanwhile (${names.length} queries)`);
    throw err;
  }
  return refused;
}
