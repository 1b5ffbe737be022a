import { and, eq } from 'drizzle-orm';
import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError, badRequest } from '../../errors.ts';
import type { StoreDb } from '../../store/open.ts';
import { destinations } from '../../store/schema/index.ts';
import type { RowOptions } from '../run/options.ts';
import { type PreparedSaved, prepareSaved } from '../run/prepare-saved.ts';
import type { ExportFields } from './fields.ts';
import { assertPathTemplate } from './path.ts';

/**
 * What an export is checked against on create and change, and again when it
 * runs: its destination exists in the export's workspace, its saved query is
 * published there, and the run the export would make passes every check a
 * `/q` request with the same values passes (the parameter rules, the
 * connection, the read-only guard). Every problem at once, 400 with `errors`.
 */
export async function checkExport(deps: AppDeps, actor: Caller, fields: ExportFields, workspace: string, firstValue: unknown): Promise<PreparedSaved> {
  const errors: Record<string, unknown> = {};
  const [destination] = await deps.store.db
    .select({ id: destinations.id })
    .from(destinations)
    .where(and(eq(destinations.name, fields.destination), eq(destinations.workspace, workspace)));
  if (!destination) errors.destination = `no destination named "${fields.destination}" in workspace "${workspace}"`;

  const bound = boundParams(fields, firstValue);
  try {
    assertPathTemplate(fields.path, new Set(Object.keys(bound)));
  } catch (err) {
    Object.assign(errors, (err as SluiceError).extras.errors);
  }
  let prepared: PreparedSaved | null = null;
  try {
    prepared = await prepareExportRun(deps, actor, fields, bound);
    if (prepared.workspace !== workspace) errors.query = `saved query "${fields.query}" is in workspace "${prepared.workspace}", not "${workspace}"`;
  } catch (err) {
    if (!(err instanceof SluiceError)) throw err;
    if (err.code === 'query_not_found' || err.code === 'version_not_found') errors.query = `no published saved query named "${fields.query}"`;
    else if (err.extras.errors && typeof err.extras.errors === 'object') errors.params = err.extras.errors;
    else throw err;
  }
  if (fields.incremental && prepared && !Object.hasOwn(prepared.rules, fields.incremental.parameter) && !prepared.markers.includes(fields.incremental.parameter)) {
    errors.incremental = `parameter "${fields.incremental.parameter}" is not a parameter of query "${fields.query}"`;
  }
  if (Object.keys(errors).length > 0) throw badRequest('Invalid export', { errors });
  return prepared!;
}

/**
 * Holds the export's destination (`FOR SHARE`) in the transaction that saves
 * the export, so a destination deleted meanwhile (which locks its row to
 * check no export names it) cannot leave the export pointing nowhere.
 */
export async function holdDestination(tx: StoreDb, name: string, workspace: string): Promise<void> {
  const [held] = await tx
    .select({ id: destinations.id })
    .from(destinations)
    .where(and(eq(destinations.name, name), eq(destinations.workspace, workspace)))
    .for('share');
  if (!held) throw badRequest('Invalid export', { errors: { destination: `no destination named "${name}" in workspace "${workspace}"` } });
}

/** The values a run binds: the export's params, and the watermark (or `start`) under the incremental parameter. */
export function boundParams(fields: ExportFields, watermark: unknown): Record<string, unknown> {
  return fields.incremental ? { ...fields.params, [fields.incremental.parameter]: watermark } : { ...fields.params };
}

/** The row options of an export's run: the whole result, streamed in its format. */
export const exportRowOptions = (fields: Pick<ExportFields, 'format'>, timeoutMs = 0): RowOptions => ({ format: fields.format, paging: null, stream: true, timeoutMs });

/** The published version's run with these values, as `/q/<query>` would prepare it for a whole-result stream. */
export async function prepareExportRun(deps: AppDeps, actor: Caller, fields: ExportFields, bound: Record<string, unknown>): Promise<PreparedSaved> {
  return prepareSaved(deps, { name: fields.query, supplied: bound, source: 'json', sqlOnly: true, caller: actor, options: exportRowOptions(fields) });
}
