import { type Format, type Serializer, serializerFor } from '../../formats/index.ts';
import { renderedLines } from '../../formats/lines.ts';
import type { StreamRun } from './engine.ts';

/**
 * A stream's bytes in the format, pulled from the cursor as the consumer
 * reads (a download, an export's upload): the serializer over the rows, or
 * the lines the database wrote itself with only the format's header added.
 */
export async function streamBytes(run: StreamRun, format: Format): Promise<{ serializer: Serializer; chunks: AsyncIterable<Uint8Array> }> {
  const serializer = await serializerFor(format);
  const { body } = run;
  const chunks =
    body.kind === 'lines' ? renderedLines(serializer, run.columns, body.chunks) : body.kind === 'file' ? body.chunks : serializer.serialize(run.columns, body.batches);
  return { serializer, chunks };
}
