import { request } from 'node:http';
import type { BenchContext } from './context.ts';
import { DUCK_TABLE } from './dataset.ts';
import { rssMiB, watchPeak } from './memory.ts';
import type { BenchOrigin } from './origin.ts';
import type { Figure } from './report.ts';
import { ratio } from './stats.ts';

/**
 * An export of the benchmark table as parquet, set up over the Management
 * API of a real origin, and its runs (`POST /api/v1/exports/{name}/runs`)
 * with the origin's memory around each.
 */

const EXPORT = 'bench_export';

/** What a run answered, timed from the request to the answer, with the origin's memory around it. */
export interface ExportRun {
  id: number;
  object: string;
  rows: number;
  bytes: number;
  seconds: number;
  rowsPerSecond: number;
  idleRssMiB: number;
  peakRssMiB: number;
}

/** POSTs JSON with no client time limit (a run answers only once the object is complete); the answer parsed. */
function post(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': payload.length }, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
        } catch {
          resolve({ status: res.statusCode ?? 0, body: text });
        }
      });
    });
    req.end(payload);
  });
}

async function create(origin: BenchOrigin, path: string, fields: Record<string, unknown>): Promise<void> {
  const res = await post(`${origin.url}${path}`, fields);
  if (res.status !== 201) throw new Error(`POST ${path} (${String(fields.name)}): ${res.status} ${JSON.stringify(res.body)}`);
}

/**
 * The DuckDB connection to the benchmark file, `select * from bench` saved
 * and published on it, the destination, and a parquet export of the query
 * to it. Returns the export's name.
 */
export async function setUpExport(origin: BenchOrigin, duckFile: string, destination: Record<string, unknown>): Promise<string> {
  await origin.addConnection({ name: 'bench_duck', db: 'duckdb', database: duckFile });
  await create(origin, '/api/v1/queries', { name: 'bench_rows', sql: `select * from ${DUCK_TABLE}`, connection_name: 'bench_duck', publish: true });
  await create(origin, '/api/v1/destinations', { name: 'bench_dest', ...destination });
  await create(origin, '/api/v1/exports', { name: EXPORT, query: 'bench_rows', format: 'parquet', destination: 'bench_dest' });
  return EXPORT;
}

/** One run of the export; throws unless it answered 201 with every row. */
export async function exportOnce(ctx: BenchContext, origin: BenchOrigin, name: string, rows: number): Promise<ExportRun> {
  origin.assertAlive();
  const idleRssMiB = rssMiB(origin.pid);
  const watch = watchPeak(origin.pid);
  const started = performance.now();
  const res = await post(`${origin.url}/api/v1/exports/${encodeURIComponent(name)}/runs`, {}).catch((error: unknown) => {
    origin.assertAlive();
    throw error;
  });
  const seconds = (performance.now() - started) / 1000;
  const peakRssMiB = watch.stop();
  origin.assertAlive();
  if (res.status !== 201) throw new Error(`export run answered ${res.status} ${JSON.stringify(res.body)}`);
  const answered = res.body as { id: number; object: string; rows: number; bytes: number };
  if (answered.rows !== rows) throw new Error(`export run wrote ${answered.rows} rows, expected ${rows}`);
  const { id, object, bytes } = answered;
  const run = { id, object, rows, bytes, seconds, rowsPerSecond: rows / seconds, idleRssMiB, peakRssMiB };
  ctx.log(`  origin export: ${Math.round(run.rowsPerSecond).toLocaleString('en-US')} rows/s, ` +
    `${(bytes / 2 ** 20).toFixed(0)} MiB, peak RSS ${peakRssMiB.toFixed(0)} MiB (idle ${idleRssMiB.toFixed(0)})`);
  return run;
}

/** The figures both export scenarios report of their runs: the origin's peak RSS against a goal, and every object stored at the size its run answered. */
export function runFigures(runs: ExportRun[], storedSizes: number[], rssGoalMiB: number, noun: 'object' | 'file'): Figure[] {
  const peak = Math.max(...runs.map((r) => r.peakRssMiB));
  const rightSize = runs.filter((r, i) => storedSizes[i] === r.bytes).length;
  return [
    {
      name: 'origin peak RSS',
      value: peak,
      unit: 'MiB',
      baselineName: 'origin idle RSS before the first run',
      baseline: runs[0]!.idleRssMiB,
      ratio: ratio(peak, runs[0]!.idleRssMiB),
      goal: { text: `<= ${rssGoalMiB} MB`, met: peak <= rssGoalMiB },
    },
    {
      name: `${noun}s ${noun === 'object' ? 'stored' : 'written'} with the size the run answered`,
      value: rightSize,
      unit: `${noun}s`,
      baselineName: 'runs',
      baseline: runs.length,
      ratio: ratio(rightSize, runs.length),
      goal: { text: `every ${noun}, byte for byte in size`, met: rightSize === runs.length },
    },
  ];
}
