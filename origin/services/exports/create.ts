import { recordAudit } from '../../audit/record.ts';
import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import { exports } from '../../store/schema/index.ts';
import { isUniqueViolation } from '../connections/create.ts';
import { checkExport, holdDestination } from './checks.ts';
import { type CreateFields, assertValidName, withDefaults } from './fields.ts';
import { findExport } from './lookup.ts';
import { type ExportRead, exportRead } from './view.ts';

export const exportExists = (name: string) => new SluiceError('export_exists', `An export named "${name}" already exists`);

/**
 * Saves a new export: the `create_export` change, its row and audit entry
 * (the full settings) in one transaction, after the checks a run would pass
 * (checks.ts).
 */
export async function createExport(deps: AppDeps, actor: Caller, input: CreateFields, workspace = 'default'): Promise<ExportRead> {
  assertValidName(input.name);
  const fields = withDefaults(input);
  await checkExport(deps, actor, fields, workspace, fields.incremental?.start);
  try {
    const row = await deps.store.db.transaction(async (tx) => {
      const taken = await findExport(tx, input.name).catch(() => null);
      if (taken) throw exportExists(input.name);
      await holdDestination(tx, fields.destination, workspace);
      const [inserted] = await tx
        .insert(exports)
        .values({
          name: input.name,
          workspace,
          query: fields.query,
          params: fields.params,
          format: fields.format,
          destination: fields.destination,
          path: fields.path,
          incremental: fields.incremental,
          skipEmpty: fields.skip_empty,
          timeout: fields.timeout,
          createdBy: actor.name,
        })
        .returning();
      await recordAudit(tx, { actor: actor.name, action: 'create_export', target: input.name, workspace, changes: { name: input.name, ...fields } });
      return inserted!;
    });
    return exportRead(row);
  } catch (err) {
    // Two creates racing past the check: the unique index decides.
    if (isUniqueViolation(err)) throw exportExists(input.name);
    throw err;
  }
}
