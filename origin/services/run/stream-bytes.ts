import { type Format, type Serializer, serializerFor } from '../../formats/index.ts';
import { renderedLines } from '../../formats/lines.ts';
import { NO_SPAN, type TraceSpan, errorCode } from '../../observability/tracing/span.ts';
import type { StreamRun } from './engine.ts';

/**
 * A stream's bytes in the format, pulled from the cursor as the consumer
 * reads (a download, an export's upload): the serializer over the rows, or
 * the lines the database wrote itself with only the format's header added.
 * A `sluice.serialize` span under `parent` lasts until the bytes end.
 */
export async function streamBytes(run: StreamRun, format: Format, parent: TraceSpan = NO_SPAN): Promise<{ serializer: Serializer; chunks: AsyncIterable<Uint8Array> }> {
  const serializer = await serializerFor(format);
  const { body } = run;
  const chunks =
    body.kind === 'lines' ? renderedLines(serializer, run.columns, body.chunks) : body.kind === 'file' ? body.chunks : serializer.serialize(run.columns, body.batches);
  return { serializer, chunks: parent === NO_SPAN ? chunks : spanned(chunks, parent.child('sluice.serialize', { 'sluice.format': format })) };
}

/** The chunks, `span` ended with their byte count when they end, fail or are stopped. */
async function* spanned(chunks: AsyncIterable<Uint8Array>, span: TraceSpan): AsyncIterable<Uint8Array> {
  let bytes = 0;
  try {
    for await (const chunk of chunks) {
      bytes += chunk.byteLength;
      yield chunk;
    }
  } catch (err) {
    span.fail(errorCode(err));
    throw err;
  } finally {
    span.set({ 'sluice.bytes': bytes });
    span.end();
  }
}
