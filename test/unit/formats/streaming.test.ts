import { describe, expect, it } from 'vitest';
import { serializerFor, type Format } from '../../../origin/formats/index.ts';
import { LOAD_COLUMNS, loadSource, sampleMemory, type MemorySample } from './load.ts';

const MILLION = 1_000_000;
/** Enough rows to show memory stays flat well past the 200k-row base (expectFlat): half a million. */
const ROWS = 500_000;
const BATCH = 1000;

/** Serialises ROWS rows, sampling memory every 50k rows; returns the samples and output size. */
async function run(format: Format, onChunk?: (chunk: Uint8Array, produced: number) => void) {
  const samples: MemorySample[] = [];
  const source = loadSource(ROWS, BATCH, (produced) => {
    if (produced % 50_000 === 0 && produced > 0) samples.push(sampleMemory(produced));
  });
  const serializer = await serializerFor(format);
  const started = performance.now();
  let bytes = 0;
  let chunks = 0;
  for await (const chunk of serializer.serialize(LOAD_COLUMNS, source.batches)) {
    bytes += chunk.byteLength;
    chunks++;
    onChunk?.(chunk, source.produced());
  }
  const seconds = (performance.now() - started) / 1000;
  samples.push(sampleMemory(ROWS));
  return { samples, bytes, chunks, seconds, produced: source.produced(), closed: source.closed() };
}

function report(format: Format, result: Awaited<ReturnType<typeof run>>) {
  const heap = result.samples.map((s) => s.heapMiB);
  console.log(`${format}: ${ROWS} rows x 6 columns in ${result.seconds.toFixed(1)} s = ${Math.round(ROWS / result.seconds)} rows/s, ` +
    `${(result.bytes / 1048576).toFixed(1)} MiB in ${result.chunks} chunks; heap after GC per 50k rows (MiB): ${heap.join(' ')}; ` +
    `external ${result.samples.map((s) => s.externalMiB).join(' ')}; rss ${result.samples.map((s) => s.rssMiB).join(' ')}`);
}

/** Live heap after the first 200k rows may not grow by more than `limit` MiB through the rest. */
function expectFlat(samples: MemorySample[], limitMiB: number) {
  const base = samples.find((s) => s.rows >= 200_000)!;
  const later = samples.filter((s) => s.rows > base.rows);
  for (const s of later) expect(s.heapMiB + s.externalMiB - (base.heapMiB + base.externalMiB)).toBeLessThan(limitMiB);
}

describe('streaming half a million rows', () => {
  it('csv: bounded memory, and the source never runs more than a few batches ahead of the output', async () => {
    let emitted = 0;
    let maxLead = 0;
    const result = await run('csv', (chunk, produced) => {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) emitted++;
      maxLead = Math.max(maxLead, produced - (emitted - 1)); // minus the header line
    });
    report('csv', result);
    console.log(`csv: the source ran at most ${maxLead} rows ahead of the bytes handed out`);
    expect(result.produced).toBe(ROWS);
    expect(maxLead).toBeLessThanOrEqual(3 * BATCH);
    expectFlat(result.samples, 32);
  });

  it('parquet: memory bounded by a row group, not by the row count', async () => {
    const result = await run('parquet');
    report('parquet', result);
    expect(result.produced).toBe(ROWS);
    expect(result.bytes).toBeGreaterThan(1_000_000);
    // One 20k-row group of six columns is a few MiB; 300k more buffered rows would be far over the limit.
    expectFlat(result.samples, 48);
  });

  it('xlsx: bounded memory over 300k rows, and a stalled client stops the producer', async () => {
    const samples: MemorySample[] = [];
    const source = loadSource(300_000, BATCH, (produced) => {
      if (produced % 50_000 === 0 && produced > 0) samples.push(sampleMemory(produced));
    });
    const xlsx = await serializerFor('xlsx');
    for await (const chunk of xlsx.serialize(LOAD_COLUMNS, source.batches)) void chunk;
    console.log(`xlsx: heap+external after GC per 50k rows (MiB): ${samples.map((s) => Math.round(s.heapMiB + s.externalMiB)).join(' ')}`);
    expectFlat(samples, 48);

    const stalled = loadSource(MILLION, BATCH);
    const iterator = xlsx.serialize(LOAD_COLUMNS, stalled.batches)[Symbol.asyncIterator]();
    await iterator.next();
    // The zip keeps taking what is buffered for a moment; then everything waits for the client.
    let atStall = -1;
    for (let i = 0; i < 40 && stalled.produced() !== atStall; i++) {
      atStall = stalled.produced();
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    console.log(`xlsx: a client that stops reading holds the producer at ${atStall} rows`);
    expect(stalled.produced()).toBe(atStall);
    // What is held is compressed output (a few MiB): this synthetic data compresses ~10x.
    expect(atStall).toBeLessThan(200_000);
    await iterator.return?.();
    // CPU-bound (300k rows zipped): on a loaded 2-core machine it needs more than the default minute.
  }, 180_000);

  it.each(['json', 'ndjson', 'csv', 'tsv', 'xml', 'yaml', 'xlsx', 'parquet'] as const)(
    '%s pulls nothing before asked, and closes the source when the consumer stops',
    async (format) => {
      const source = loadSource(format === 'parquet' ? 5000 : MILLION, BATCH);
      const serializer = await serializerFor(format);
      const iterator = serializer.serialize(LOAD_COLUMNS, source.batches)[Symbol.asyncIterator]();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(source.produced()).toBe(0);
      const first = await iterator.next();
      expect(first.done).toBe(false);
      if (format !== 'parquet' && format !== 'xlsx') expect(source.produced()).toBeLessThanOrEqual(3 * BATCH);
      await iterator.return?.();
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (format === 'xlsx') {
        // The producer runs beside the consumer: it stops at its next batch boundary.
        expect(source.produced()).toBeLessThan(MILLION);
      }
      expect(source.closed()).toBe(true);
    },
  );
});
