import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { assertIfMatch, findQuery, readQuery } from './lookup.ts';
import { reviseQuery } from './revise.ts';
import type { QueryRead } from './view.ts';
import { afterQueryChange } from './definition-cache.ts';

/**
 * Unpublishes the query: the `unpublish_query` change, `{version: {from, to:
 * null}}`. Every version is kept (all become drafts) and `/q/<name>` answers
 * 404. A query with nothing published is left as it is, and nothing is written.
 */
export async function unpublishQuery(deps: AppDeps, actor: Caller, name: string, { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {}): Promise<QueryRead> {
  return afterQueryChange(deps.store, name, deps.store.db.transaction(async (tx) => {
    const current = await findQuery(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, current);
    if (current.publishedVersion === null) return readQuery(tx, current);
    const row = await reviseQuery(tx, current, { publishedVersion: null });
    await recordAudit(tx, {
      actor: actor.name,
      action: 'unpublish_query',
      target: name,
      workspace: current.workspace,
      changes: { version: { from: current.publishedVersion, to: null } },
    });
    return readQuery(tx, row);
  }));
}
