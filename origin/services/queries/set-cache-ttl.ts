import { eq } from 'drizzle-orm';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { queryVersions } from '../../store/schema/index.ts';
import { assertIfMatch, findQuery, findVersion, runStats } from './lookup.ts';
import { reviseQuery } from './revise.ts';
import { type VersionRead, versionRead } from './get.ts';
import { afterQueryChange } from './definition-cache.ts';

/**
 * Retunes a version's `cache_ttl` in place: the `update_query_version` change,
 * `{version, cache_ttl: {from, to}}`. Not a new version. The same value
 * writes nothing.
 */
export async function setCacheTtl(
  deps: AppDeps,
  actor: Caller,
  name: string,
  version: number,
  cacheTtl: number | null,
  { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {},
): Promise<VersionRead> {
  return afterQueryChange(deps.store, name, deps.store.db.transaction(async (tx) => {
    const current = await findQuery(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, current);
    const before = await findVersion(tx, current, version);
    if (before.cacheTtl === cacheTtl) return versionRead(current, before, await runStats(tx, current));
    const [after] = await tx.update(queryVersions).set({ cacheTtl }).where(eq(queryVersions.id, before.id)).returning();
    const row = await reviseQuery(tx, current, {});
    await recordAudit(tx, {
      actor: actor.name,
      action: 'update_query_version',
      target: name,
      workspace: current.workspace,
      changes: { version, cache_ttl: { from: before.cacheTtl, to: cacheTtl } },
    });
    return versionRead(row, after, await runStats(tx, row));
  }));
}
