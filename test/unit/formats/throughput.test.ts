import { describe, it } from 'vitest';
import { FORMATS, serializerFor } from '../../../origin/formats/index.ts';
import { LOAD_COLUMNS, loadSource } from './load.ts';

/**
 * Throughput of every format over 1M rows x 6 columns. Slow (xlsx alone takes
 * ~20 s), so it runs only with SLUICE_FORMAT_BENCH=1; it prints, it does not assert.
 * RSS is the process's: run one format per process for clean numbers
 * (`-t parquet`).
 */
describe.skipIf(!process.env.SLUICE_FORMAT_BENCH)('throughput, 1M rows x 6 columns', () => {
  it.each([...FORMATS])('%s', async (format) => {
    const rows = Number(process.env.SLUICE_FORMAT_BENCH_ROWS ?? 1_000_000);
    const serializer = await serializerFor(format);
    const baseRss = process.memoryUsage.rss();
    let peakRss = baseRss;
    // Sampled as each batch is pulled: the pipeline may never yield to timers.
    const source = loadSource(rows, 1000, () => (peakRss = Math.max(peakRss, process.memoryUsage.rss())));
    const started = performance.now();
    let bytes = 0;
    for await (const chunk of serializer.serialize(LOAD_COLUMNS, source.batches)) bytes += chunk.byteLength;
    const seconds = (performance.now() - started) / 1000;
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    console.log(`${format.padEnd(8)} ${Math.round(rows / seconds).toString().padStart(8)} rows/s  ${seconds.toFixed(1).padStart(5)} s  ` +
      `${(bytes / 1048576).toFixed(1).padStart(6)} MiB out  peak RSS ${Math.round(peakRss / 1048576)} MiB (+${Math.round((peakRss - baseRss) / 1048576)})`);
  }, 600_000);
});
