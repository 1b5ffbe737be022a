import { eq } from 'drizzle-orm';
import { diffFields } from '../../../audit/diff.ts';
import { exports } from '../../../store/schema/index.ts';
import { createExport } from '../../exports/create.ts';
import { deleteExport } from '../../exports/delete.ts';
import { withDefaults } from '../../exports/fields.ts';
import { updateExport } from '../../exports/update.ts';
import { rowFields } from '../../exports/view.ts';
import { type Section, assertInWorkspace, recordCreate, recordUpdate } from '../context.ts';
import type { ExportEntry } from '../file.ts';

/** `exports`: an entry is the export's whole settings; its watermark is the server's and is never touched. */
export const exportsSection: Section<ExportEntry> = {
  kind: 'exports',

  async upsert(deps, ctx, entry) {
    const [current] = await deps.store.db.select().from(exports).where(eq(exports.name, entry.name));
    if (!current) {
      await createExport(deps, ctx.actor, entry, ctx.workspace);
      return recordCreate(ctx, 'exports', entry.name);
    }
    assertInWorkspace(ctx, 'exports', entry.name, current.workspace);
    const after = withDefaults(entry);
    const fields = diffFields({ ...rowFields(current) }, { ...after });
    if (Object.keys(fields).length > 0) {
      // null clears params and path to what a new export gets, as the file left them out.
      const change = { ...entry, params: entry.params ?? null, path: entry.path ?? null, incremental: entry.incremental ?? null, skip_empty: after.skip_empty, timeout: entry.timeout ?? null };
      await updateExport(deps, ctx.actor, entry.name, change, { workspace: ctx.workspace });
    }
    recordUpdate(ctx, 'exports', entry.name, fields);
  },

  async remove(deps, ctx, name) {
    const [current] = await deps.store.db.select({ id: exports.id }).from(exports).where(eq(exports.name, name));
    if (!current) return false;
    await deleteExport(deps, ctx.actor, name, { workspace: ctx.workspace });
    return true;
  },
};
