import { eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { apiKeys } from '../../store/schema/index.ts';
import { byName } from '../collections/lookup.ts';
import { findKey } from './lookup.ts';
import { type KeyRead, type KeyView, keyRead, keyView } from './view.ts';

/** One key with its ETag; 404 `key_not_found` (also for a key of another workspace on a workspace-scoped call). */
export async function getKey(deps: AppDeps, name: string, { workspace }: { workspace?: string } = {}): Promise<KeyRead> {
  return keyRead(deps, await findKey(deps.store.db, name, { workspace }));
}

/** Every key by name, or only those of `workspace` on a workspace-scoped call. Never a secret or hash. */
export async function listKeys(deps: AppDeps, { workspace }: { workspace?: string } = {}): Promise<KeyView[]> {
  const query = deps.store.db.select().from(apiKeys);
  const rows = await (workspace === undefined ? query : query.where(eq(apiKeys.workspace, workspace)));
  rows.sort((a, b) => byName(a.name, b.name));
  const now = Date.now();
  return Promise.all(rows.map((row) => keyView(deps, row, now)));
}
