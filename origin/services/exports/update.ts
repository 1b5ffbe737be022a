import { eq } from 'drizzle-orm';
import { diffFields } from '../../audit/diff.ts';
import { recordAudit } from '../../audit/record.ts';
import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import { badRequest } from '../../errors.ts';
import { exports } from '../../store/schema/index.ts';
import { checkExport, holdDestination } from './checks.ts';
import { DEFAULT_PATH, type ExportFields, type UpdateFields } from './fields.ts';
import { assertIfMatch, findExport } from './lookup.ts';
import { type ExportRead, exportRead, rowFields } from './view.ts';
import { readWatermark, showWatermark, storeWatermark } from './watermark.ts';

/**
 * Changes an export: the `update_export` change. Absent fields keep their
 * value, null clears an optional one (`params` to `{}`, `path` to the
 * default). `watermark` rewinds it to a value or resets it (null: the next
 * run starts at `incremental.start`); that is audited as a change like any
 * other. The changed export passes the checks a run would (checks.ts). A
 * request that changes nothing writes nothing.
 */
export async function updateExport(
  deps: AppDeps,
  actor: Caller,
  name: string,
  input: UpdateFields,
  { workspace, ifMatch }: { workspace?: string; ifMatch?: string } = {},
): Promise<ExportRead> {
  const current = await findExport(deps.store.db, name, { workspace });
  if (input.name !== undefined && input.name !== current.name) {
    throw badRequest('An export cannot be renamed: create one under the new name and delete this one', { errors: { name: 'cannot be changed' } });
  }
  const before = rowFields(current);
  const after = merge(before, input);
  if (input.watermark !== undefined && !after.incremental) {
    throw badRequest('watermark applies only to an incremental export', { errors: { watermark: 'the export has no incremental settings' } });
  }
  const nextValue = input.watermark === undefined ? readWatermark(current.watermark) : input.watermark;
  await checkExport(deps, actor, after, current.workspace, nextValue ?? after.incremental?.start);

  const row = await deps.store.db.transaction(async (tx) => {
    const locked = await findExport(tx, name, { workspace, forUpdate: true });
    assertIfMatch(ifMatch, locked);
    const changes: Record<string, unknown> = diffFields({ ...rowFields(locked) }, { ...after });
    const watermarkBefore = showWatermark(readWatermark(locked.watermark));
    if (input.watermark !== undefined && input.watermark !== watermarkBefore) changes.watermark = { from: watermarkBefore, to: input.watermark };
    if (Object.keys(changes).length === 0) return locked;
    if (after.destination !== locked.destination) await holdDestination(tx, after.destination, locked.workspace);
    const [updated] = await tx
      .update(exports)
      .set({
        query: after.query,
        params: after.params,
        format: after.format,
        destination: after.destination,
        path: after.path,
        incremental: after.incremental,
        skipEmpty: after.skip_empty,
        timeout: after.timeout,
        ...(input.watermark === undefined ? {} : { watermark: input.watermark === null ? null : storeWatermark(input.watermark) }),
        revision: locked.revision + 1,
        updatedAt: new Date(),
      })
      .where(eq(exports.id, locked.id))
      .returning();
    await recordAudit(tx, { actor: actor.name, action: 'update_export', target: name, workspace: locked.workspace, changes });
    return updated!;
  });
  return exportRead(row);
}

function merge(before: ExportFields, input: UpdateFields): ExportFields {
  return {
    query: input.query ?? before.query,
    params: input.params === undefined ? before.params : (input.params ?? {}),
    format: input.format ?? before.format,
    destination: input.destination ?? before.destination,
    path: input.path === undefined ? before.path : (input.path ?? DEFAULT_PATH),
    incremental: input.incremental === undefined ? before.incremental : input.incremental,
    skip_empty: input.skip_empty ?? before.skip_empty,
    timeout: input.timeout === undefined ? before.timeout : input.timeout,
  };
}
