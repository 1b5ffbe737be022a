import { type SQL, and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { AppDeps } from '../../deps.ts';
import { type RunRow, connections, queries, runs } from '../../store/schema/index.ts';
import { formatDate } from '../../time.ts';
import { findQuery } from '../queries/lookup.ts';
import { CURSOR, type HistoryFilters } from './filters.ts';

export interface RunItem {
  id: number;
  time: string;
  query: string | null;
  version: number | null;
  connection: string;
  status: 'success' | 'error';
  rows: number;
  duration_ms: number;
  serialization_ms: number | null;
  request_id: string | null;
  /** The OpenTelemetry trace of the run, when tracing was on. */
  trace_id: string | null;
  key_name: string | null;
  transport: string;
  format: string | null;
  error: string | null;
  /** Export runs only: the export, its destination, the object written (or null) and the watermark after the run. */
  export?: string;
  destination?: string;
  object?: string | null;
  watermark?: unknown;
  /** Document-query CSV and TSV streams only: fields first seen after the columns were fixed, left out. */
  fields_dropped?: number;
  /** Stored results only: the result's id. */
  result?: string;
}

export interface RunPage {
  items: RunItem[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

/**
 * Stored runs, newest first (in the order they were recorded), one page at a
 * time. Runs still queued by the recorder are written first, so a client sees
 * the run it just made. The cursor is the id of the page's last run, so runs
 * recorded while a client pages never shift or repeat what it sees.
 * `notBefore` hides runs older than the query itself (a query recreated under
 * an old name). `workspace` (a workspace-scoped call) keeps only runs on a
 * connection of that workspace, of a saved query of it or ad hoc.
 */
export async function listRuns(
  deps: Pick<AppDeps, 'store' | 'history'>,
  filters: HistoryFilters,
  { notBefore, workspace }: { notBefore?: Date; workspace?: string } = {},
): Promise<RunPage> {
  await deps.history.flush();
  const conditions: SQL[] = [];
  if (filters.query !== undefined) conditions.push(eq(runs.query, filters.query));
  if (filters.version !== undefined) conditions.push(eq(runs.version, filters.version));
  if (filters.status !== undefined) conditions.push(eq(runs.status, filters.status));
  if (filters.key !== undefined) conditions.push(eq(runs.keyName, filters.key));
  if (filters.since !== undefined) conditions.push(gte(runs.time, filters.since));
  if (filters.until !== undefined) conditions.push(lt(runs.time, filters.until));
  if (notBefore !== undefined) conditions.push(gte(runs.time, notBefore));
  if (filters.before !== undefined) conditions.push(lt(runs.id, filters.before));
  if (workspace !== undefined) conditions.push(runInWorkspace(workspace));
  const rows = await deps.store.db
    .select()
    .from(runs)
    .where(and(...conditions))
    .orderBy(desc(runs.id))
    .limit(filters.limit + 1);
  const more = rows.length > filters.limit;
  const page = more ? rows.slice(0, filters.limit) : rows;
  return { items: page.map(runItem), next_cursor: more ? CURSOR.encode(page[page.length - 1].id) : null };
}

/**
 * One saved query's runs (404 `query_not_found` for an unknown name, or one
 * of another workspace on a workspace-scoped call). History is kept by name
 * and outlives a deleted query: only runs since this query was created are
 * its own.
 */
export async function listQueryRuns(deps: Pick<AppDeps, 'store' | 'history'>, name: string, filters: HistoryFilters, { workspace }: { workspace?: string } = {}): Promise<RunPage> {
  const query = await findQuery(deps.store.db, name, { workspace });
  return listRuns(deps, { ...filters, query: name }, { notBefore: query.createdAt, workspace });
}

/**
 * Runs keep names, not ids: a run is of a workspace when its connection (and
 * its saved query, if any) is an object of that workspace created before the
 * run, so a name deleted in one workspace and re-created in another does not
 * hand over the old runs.
 */
function runInWorkspace(workspace: string): SQL {
  const connection = sql`exists (select 1 from ${connections} where ${connections.name} = ${runs.connection} and ${connections.workspace} = ${workspace} and ${connections.createdAt} <= ${runs.time})`;
  const query = sql`exists (select 1 from ${queries} where ${queries.name} = ${runs.query} and ${queries.workspace} = ${workspace} and ${queries.createdAt} <= ${runs.time})`;
  return sql`(${connection} and (${runs.query} is null or ${query}))`;
}

export function runItem(row: RunRow): RunItem {
  return {
    id: row.id,
    time: formatDate(row.time),
    query: row.query,
    version: row.version,
    connection: row.connection,
    status: row.status,
    rows: row.rows,
    duration_ms: row.durationMs,
    serialization_ms: row.serializationMs,
    request_id: row.requestId,
    trace_id: row.traceId,
    key_name: row.keyName,
    transport: row.transport,
    format: row.format,
    error: row.error,
    ...(row.transport === 'export' ? exportDetails(row.details) : {}),
    ...(row.transport === 'result' && typeof row.details?.result === 'string' ? { result: row.details.result } : {}),
    ...(typeof row.details?.fields_dropped === 'number' ? { fields_dropped: row.details.fields_dropped } : {}),
  };
}

function exportDetails(details: Record<string, unknown> | null): Pick<RunItem, 'export' | 'destination' | 'object' | 'watermark'> {
  const { export: name, destination, object, watermark } = details ?? {};
  return { export: name as string, destination: destination as string, object: (object ?? null) as string | null, watermark: watermark ?? null };
}
