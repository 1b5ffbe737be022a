/**
 * One format's serializer over synthetic rows, in a process of its own so its
 * memory is its own: `node --import tsx bench/lib/format-worker.ts <format|baseline> <rows>`.
 * Prints one JSON line: seconds, bytes, peak RSS growth. `baseline` is
 * `JSON.stringify` of each row (timestamps and dates as their text) into ~64 KiB chunks.
 */
import { serializerFor, type Format } from '../../origin/formats/index.ts';
import { formatInstantMicros } from '../../origin/time.ts';
import { Instant, SqlDate, type Value } from '../../origin/values.ts';
import { SYNTHETIC_COLUMNS, syntheticRows } from './synthetic.ts';

const [format, rowsText] = process.argv.slice(2);
const rows = Number(rowsText);

async function* stringified(batches: AsyncIterable<Value[][]>): AsyncIterable<Uint8Array> {
  let buffer = '';
  for await (const batch of batches) {
    for (const row of batch) {
      buffer += `${JSON.stringify(row.map((v) => (v instanceof Instant ? formatInstantMicros(v.epochMicros) : v instanceof SqlDate ? v.text : v)))}\n`;
      if (buffer.length >= 65536) {
        yield Buffer.from(buffer);
        buffer = '';
      }
    }
  }
  if (buffer) yield Buffer.from(buffer);
}

const base = process.memoryUsage.rss();
let peak = base;
// Sampled as each batch is pulled: a tight pipeline may never yield to timers.
const source = syntheticRows(rows, 1000, () => (peak = Math.max(peak, process.memoryUsage.rss())));
const chunks = format === 'baseline' ? stringified(source) : (await serializerFor(format as Format)).serialize(SYNTHETIC_COLUMNS, source);
const started = performance.now();
let bytes = 0;
for await (const chunk of chunks) bytes += chunk.byteLength;
const seconds = (performance.now() - started) / 1000;
peak = Math.max(peak, process.memoryUsage.rss());
console.log(JSON.stringify({ format, rows, seconds, bytes, growthMiB: (peak - base) / 2 ** 20 }));
