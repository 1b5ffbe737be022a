import type { ResultRow } from '../../store/schema/index.ts';
import { formatDate } from '../../time.ts';

/** A result as `/results` answers it: its chunks each with a fresh link, good for SLUICE_RESULT_LINK_TTL seconds. */
export interface ResultView {
  id: string;
  state: ResultRow['state'];
  format: ResultRow['format'];
  query: string | null;
  version: number | null;
  connection: string;
  rows: number;
  bytes: number;
  truncated: boolean;
  chunks: Array<{ index: number; rows: number; bytes: number; url: string; expires_at: string }>;
  error: ResultRow['error'];
  created_at: string;
  finished_at: string | null;
  expires_at: string | null;
}

/** `urls`: each chunk's link, in order, good until `expires` (unix seconds). */
export function resultView(row: ResultRow, urls: string[], expires: number): ResultView {
  const expiresAt = formatDate(new Date(expires * 1000));
  return {
    id: row.id,
    state: row.state,
    format: row.format,
    query: row.query,
    version: row.version,
    connection: row.connection,
    rows: row.rows,
    bytes: row.bytes,
    truncated: row.truncated,
    chunks: row.chunks.map((chunk, at) => ({ ...chunk, url: urls[at]!, expires_at: expiresAt })),
    error: row.error,
    created_at: formatDate(row.createdAt),
    finished_at: row.finishedAt ? formatDate(row.finishedAt) : null,
    expires_at: row.expiresAt ? formatDate(row.expiresAt) : null,
  };
}
