import { type Format, serializerFor } from '../../formats/index.ts';
import type { PageRun } from './engine.ts';
import type { LeftOut } from './window.ts';

/** Formats that are files rather than documents: always offered as a download. */
const ATTACHMENT_FORMATS: ReadonlySet<Format> = new Set(['xlsx', 'parquet']);

/**
 * Where a page carries its count of the rows left out after it (only an MCP
 * tool's page counts them: Paging.countBeyond), so that the count survives
 * the response cache: "N", or "N+" when counting stopped at its bound.
 */
const LEFT_OUT_HEADER = 'X-Rows-Left-Out';

/** Where a page ended early at its byte budget (Paging.maxBytes, an MCP tool's page) carries that budget. */
const CUT_AT_BYTES_HEADER = 'X-Rows-Cut-At-Bytes';

/** The answer of an empty JSON page (the spec's). */
const NO_RESULTS = new TextEncoder().encode(JSON.stringify({ message: 'No results returned' }));

/** A page as bytes in its format, with the headers that describe it (kept with it in the response cache). */
export interface PageBody {
  body: Uint8Array;
  headers: Record<string, string>;
  serializationMs: number;
}

/** How a page was cut, read back from its headers (a fresh page's or a cached one's). */
export interface PageShape {
  hasMore: boolean;
  /** The rows counted after the page, or null when it counted none. */
  leftOut: LeftOut | null;
  /** The byte budget the page was cut at, or null when it was not. */
  cutAtBytes: number | null;
}

/** One page, serialised whole (a page is at most SLUICE_MAX_PAGE_SIZE rows). */
export async function pageBody(run: PageRun, format: Format, paging: { page: number; pageSize: number }, filename: string): Promise<PageBody> {
  const headers: Record<string, string> = {
    'X-Page': String(paging.page),
    'X-Page-Size': String(paging.pageSize),
    'X-Has-More': String(run.hasMore),
  };
  if (run.leftOut) headers[LEFT_OUT_HEADER] = `${run.leftOut.rows}${run.leftOut.more ? '+' : ''}`;
  if (run.cutAtBytes !== undefined) headers[CUT_AT_BYTES_HEADER] = String(run.cutAtBytes);
  if (run.rows.length === 0 && format === 'json') {
    headers['Content-Type'] = 'application/json';
    return { body: NO_RESULTS, headers, serializationMs: 0 };
  }
  const t0 = performance.now();
  const serializer = await serializerFor(format);
  const chunks: Uint8Array[] = [];
  for await (const chunk of serializer.serialize(run.columns, single(run.rows))) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  headers['Content-Type'] = serializer.contentType;
  if (ATTACHMENT_FORMATS.has(format)) headers['Content-Disposition'] = `attachment; filename="${filename}.${serializer.extension}"`;
  return { body, headers, serializationMs: performance.now() - t0 };
}

/** The shape a page's headers describe; `header` reads one by name, whatever its case. */
export function pageShape(header: (name: string) => string | undefined): PageShape {
  const count = /^(\d+)(\+?)$/.exec(header(LEFT_OUT_HEADER) ?? '');
  const bytes = /^\d+$/.exec(header(CUT_AT_BYTES_HEADER) ?? '');
  return {
    hasMore: header('X-Has-More') === 'true',
    leftOut: count ? { rows: Number(count[1]), more: count[2] === '+' } : null,
    cutAtBytes: bytes ? Number(bytes[0]) : null,
  };
}

async function* single<T>(batch: T) {
  yield batch;
}
