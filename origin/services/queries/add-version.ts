import { recordAudit } from '../../audit/record.ts';
import type { AppDeps, Caller } from '../../http/context.ts';
import { queryVersions } from '../../store/schema/index.ts';
import { checkDefinition } from './definition.ts';
import type { VersionFields } from './fields.ts';
import { assertIfMatch, findQuery, readQuery } from './lookup.ts';
import { reviseQuery } from './revise.ts';
import { type QueryRead, versionSnapshot } from './view.ts';
import { afterQueryChange } from './definition-cache.ts';

/**
 * Adds a version: a `save_query` change. It takes the query's next number
 * (never reused, even after deletes). With `publish` true it is published and
 * the prior published version becomes previous; otherwise it is a draft and
 * the published version keeps serving.
 */
export async function addVersion(
  deps: AppDeps,
  actor: Caller,
  name: string,
  input: VersionFields,
  { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {},
): Promise<QueryRead & { version: number }> {
  // An unknown query is a 404 before any definition problem.
  const query = await findQuery(deps.store.db, name, { workspace });
  const definition = await checkDefinition(deps.store.db, input, { workspace: query.workspace });
  const published = input.publish ?? false;
  return afterQueryChange(deps.store, name, deps.store.db.transaction(async (tx) => {
    const current = await findQuery(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, current);
    const number = current.nextVersion;
    const [version] = await tx
      .insert(queryVersions)
      .values({ queryId: current.id, version: number, ...definition, author: input.author ?? actor.name, createdAt: new Date() })
      .returning();
    const row = await reviseQuery(tx, current, {
      nextVersion: number + 1,
      ...(published ? { publishedVersion: number } : {}),
    });
    await recordAudit(tx, {
      actor: actor.name,
      action: 'save_query',
      target: name,
      changes: { ...versionSnapshot(name, version), published },
    });
    return { ...(await readQuery(tx, row)), version: number };
  }));
}
