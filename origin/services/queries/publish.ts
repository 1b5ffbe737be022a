import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { assertIfMatch, findQuery, findVersion, readQuery } from './lookup.ts';
import { reviseQuery } from './revise.ts';
import type { QueryRead } from './view.ts';
import { afterQueryChange } from './definition-cache.ts';

/**
 * Publishes version `n` (a draft, or a previous version: a rollback): the
 * `publish_query` change, `{version: {from, to}}`. Publishing the version
 * already published changes nothing and writes nothing. 404
 * `version_not_found` for a version that does not exist.
 */
export async function publishVersion(
  deps: AppDeps,
  actor: Caller,
  name: string,
  version: number,
  { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {},
): Promise<QueryRead> {
  return afterQueryChange(deps.store, name, deps.store.db.transaction(async (tx) => {
    const current = await findQuery(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, current);
    await findVersion(tx, current, version);
    if (current.publishedVersion === version) return readQuery(tx, current);
    const row = await reviseQuery(tx, current, { publishedVersion: version });
    await recordAudit(tx, {
      actor: actor.name,
      action: 'publish_query',
      target: name,
      workspace: current.workspace,
      changes: { version: { from: current.publishedVersion, to: version } },
    });
    return readQuery(tx, row);
  }));
}
