import type { ExportRow, ExportRunRow } from '../../store/schema/index.ts';
import { formatDate } from '../../time.ts';
import type { ExportFields, ExportFormat } from './fields.ts';
import { readWatermark, showWatermark } from './watermark.ts';

/** An export as the API shows it. */
export interface ExportView {
  name: string;
  query: string;
  params: Record<string, unknown>;
  format: ExportFormat;
  destination: string;
  path: string;
  incremental: ExportFields['incremental'];
  skip_empty: boolean;
  timeout: number | null;
  /** The next run's lower bound: the largest value delivered, or null (`incremental.start` is next). */
  watermark: number | string | boolean | null;
  /** A run holds the lease now. */
  running: boolean;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface ExportRead {
  export: ExportView;
  etag: string;
}

/** A run as `POST .../runs` answers it and `GET .../runs` lists it. */
export interface ExportRunView {
  id: number;
  status: 'running' | 'success' | 'error';
  started_at: string;
  finished_at: string | null;
  actor: string;
  destination: string;
  /** The full location written, or null when nothing was (no rows with `skip_empty`, or a failure). */
  object: string | null;
  rows: number;
  bytes: number;
  /** Null for an export that is not incremental. */
  watermark: { from: number | string | boolean | null; to: number | string | boolean | null } | null;
  error: string | null;
}

export const exportEtag = (row: Pick<ExportRow, 'id' | 'revision'>) => `"e${row.id}.${row.revision}"`;

export function rowFields(row: ExportRow): ExportFields {
  return {
    query: row.query,
    params: row.params,
    format: row.format,
    destination: row.destination,
    path: row.path,
    incremental: row.incremental as ExportFields['incremental'],
    skip_empty: row.skipEmpty,
    timeout: row.timeout,
  };
}

export function exportView(row: ExportRow, now = new Date()): ExportView {
  return {
    name: row.name,
    ...rowFields(row),
    watermark: showWatermark(readWatermark(row.watermark)),
    running: row.leaseExpires !== null && row.leaseExpires > now,
    created_by: row.createdBy,
    created_at: formatDate(row.createdAt),
    updated_at: formatDate(row.updatedAt),
  };
}

export const exportRead = (row: ExportRow): ExportRead => ({ export: exportView(row), etag: exportEtag(row) });

export function exportRunView(row: ExportRunRow, incremental: boolean): ExportRunView {
  const shown = (stored: ExportRunRow['watermarkFrom']) => showWatermark(readWatermark(stored));
  return {
    id: row.id,
    status: row.status,
    started_at: formatDate(row.startedAt),
    finished_at: row.finishedAt === null ? null : formatDate(row.finishedAt),
    actor: row.actor,
    destination: row.destination,
    object: row.object,
    rows: row.rows,
    bytes: row.bytes,
    watermark: incremental ? { from: shown(row.watermarkFrom), to: shown(row.watermarkTo) } : null,
    error: row.error,
  };
}
