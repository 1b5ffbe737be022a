import type { Context } from 'hono';
import { serializerFor, type Format } from '../formats/index.ts';
import type { PageRun, StreamRun } from '../services/run/run-sql.ts';
import type { LeftOut } from '../services/run/window.ts';
import { streamBytes } from '../services/run/stream-bytes.ts';
import type { AppEnv } from './context.ts';

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

/** The count a page answer carries, or null when it counted none. */
export function leftOutOf(response: Response): LeftOut | null {
  const count = /^(\d+)(\+?)$/.exec(response.headers.get(LEFT_OUT_HEADER) ?? '');
  return count ? { rows: Number(count[1]), more: count[2] === '+' } : null;
}

/** The byte budget a page answer was cut at, or null when it was not. */
export function cutAtBytesOf(response: Response): number | null {
  const bytes = /^\d+$/.exec(response.headers.get(CUT_AT_BYTES_HEADER) ?? '');
  return bytes ? Number(bytes[0]) : null;
}

export interface PageResponse {
  response: Response;
  serializationMs: number;
}

/** One page, serialised whole (a page is at most SLUICE_MAX_PAGE_SIZE rows). */
export async function pageResponse(
  c: Context<AppEnv>,
  run: PageRun,
  format: Format,
  paging: { page: number; pageSize: number },
  filename: string,
): Promise<PageResponse> {
  const headers: Record<string, string> = {
    'X-Page': String(paging.page),
    'X-Page-Size': String(paging.pageSize),
    'X-Has-More': String(run.hasMore),
  };
  if (run.leftOut) headers[LEFT_OUT_HEADER] = `${run.leftOut.rows}${run.leftOut.more ? '+' : ''}`;
  if (run.cutAtBytes !== undefined) headers[CUT_AT_BYTES_HEADER] = String(run.cutAtBytes);
  if (run.rows.length === 0 && format === 'json') {
    return { response: c.json({ message: 'No results returned' }, 200, headers), serializationMs: 0 };
  }
  const t0 = performance.now();
  const serializer = await serializerFor(format);
  const chunks: Uint8Array[] = [];
  for await (const chunk of serializer.serialize(run.columns, single(run.rows))) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  const serializationMs = performance.now() - t0;
  headers['Content-Type'] = serializer.contentType;
  if (ATTACHMENT_FORMATS.has(format)) headers['Content-Disposition'] = `attachment; filename="${filename}.${serializer.extension}"`;
  return { response: new Response(body, { status: 200, headers }), serializationMs };
}

/**
 * The whole result as a download, pulled from the cursor as the client reads.
 * Lines the database wrote itself only get the header.
 */
export async function streamResponse(run: StreamRun, format: Format, filename: string): Promise<Response> {
  const { serializer, chunks } = await streamBytes(run, format);
  return new Response(toReadable(chunks), {
    status: 200,
    headers: {
      'Content-Type': serializer.contentType,
      'Content-Disposition': `attachment; filename="${filename}.${serializer.extension}"`,
    },
  });
}

async function* single<T>(batch: T) {
  yield batch;
}

/**
 * A pull-based stream: the next chunk is produced only when the client has
 * taken the previous one. A client that goes away cancels the stream, which
 * ends the iterator and so closes the database cursor.
 */
function toReadable(chunks: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { value, done } = await iterator.next();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (err) {
          // Mid-stream failure: the download just ends early (headers are already sent).
          controller.error(err);
        }
      },
      async cancel() {
        await iterator.return?.();
      },
    },
    { highWaterMark: 1 },
  );
}
