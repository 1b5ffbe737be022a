/**
 * `npm run bench [-- <scenario>...] [--rows N] [--runs N] [--seconds N] [--tag T] [--keep]`
 *
 * Runs the scenarios (those of the performance issue by default; `formats`, `drivers`, `export-s3`, `export-local`, `results`, `budgets`, `tracing`, `mcp`, `mongo-stream`, `console-load` and `peers` when named) and writes
 * bench/results/<date>-<scenario>[-<tag>].md and .json; a tag names what is measured (`pipe-export`, `no-arenas`).
 * Every figure is read against a baseline measured in the same run on the same machine. See bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { BenchContext, Scenario } from './lib/context.ts';
import { buildDuckFile, preparePostgres } from './lib/dataset.ts';
import { describeMachine } from './lib/machine.ts';
import { ROOT } from './lib/process.ts';
import { writeResult } from './lib/report.ts';
import { budgets } from './scenarios/budgets.ts';
import { tracing } from './scenarios/tracing.ts';
import { consoleLoad } from './scenarios/console-load.ts';
import { drivers } from './scenarios/drivers.ts';
import { edgeCache } from './scenarios/edge-cache.ts';
import { results } from './scenarios/results.ts';
import { exportLocal } from './scenarios/export-local.ts';
import { exportS3 } from './scenarios/export-s3.ts';
import { formats } from './scenarios/formats.ts';
import { mcp } from './scenarios/mcp.ts';
import { mongoStream } from './scenarios/mongo-stream.ts';
import { pagedJson } from './scenarios/paged-json.ts';
import { peers } from './scenarios/peers.ts';
import { savedQuery } from './scenarios/saved-query.ts';
import { smallQuery } from './scenarios/small-query.ts';
import { streamCsv } from './scenarios/stream-csv.ts';
import { streamParquet } from './scenarios/stream-parquet.ts';
import { streamClickhouse } from './scenarios/stream-clickhouse.ts';
import { streamPostgres } from './scenarios/stream-postgres.ts';

/** Run when no scenario is named. */
const DEFAULT: Scenario[] = [streamCsv, streamParquet, streamPostgres, smallQuery, pagedJson, savedQuery, edgeCache];
/** Run only when named: the parts alone (serializers, driver cursors), the exports, stored results, budgets, the other engines' streams, the console's load and the peer servers. */
const EXTRA: Scenario[] = [formats, drivers, exportS3, exportLocal, results, budgets, tracing, mcp, mongoStream, streamClickhouse, consoleLoad, peers];
const SCENARIOS = [...DEFAULT, ...EXTRA];

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rows: { type: 'string', default: '5000000' },
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '10' },
    tag: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

const unknown = positionals.filter((p) => !SCENARIOS.some((s) => s.name === p));
if (unknown.length) {
  console.error(`Unknown scenario ${unknown.join(', ')}; choose from ${SCENARIOS.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
const chosen = positionals.length ? SCENARIOS.filter((s) => positionals.includes(s.name)) : DEFAULT;
const options = { rows: Number(values.rows), runs: Number(values.runs), seconds: Number(values.seconds) };
const pgUrl = process.env.SLUICE_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

// The origin runs as it does in production: the bundle `npm start` builds.
execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--quiet'], { cwd: ROOT, stdio: 'inherit' });

const workDir = await mkdtemp(join(tmpdir(), 'sluice-bench-'));
const log = (message: string) => console.log(`[bench] ${message}`);
let duckFile: Promise<string> | null = null;
let pgReady: Promise<void> | null = null;
const ctx: BenchContext = {
  workDir,
  ...options,
  pgUrl,
  log,
  duckFile: () => (duckFile ??= (log(`building the DuckDB file (${options.rows} rows)`), buildDuckFile(workDir, options.rows))),
  pgReady: () => (pgReady ??= preparePostgres(pgUrl)),
};

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
const dirty = execFileSync('git', ['status', '--porcelain', '--', 'origin', 'bench'], { cwd: ROOT, encoding: 'utf8' }).trim() ? '+changes' : '';
const now = new Date();
const date = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;

let failed = false;
try {
  for (const scenario of chosen) {
    log(`scenario ${scenario.name}`);
    const machine = await describeMachine(pgUrl);
    const startedAt = new Date().toISOString();
    try {
      const result = await scenario.run(ctx);
      const loadAverageEnd = loadavg().map((n) => Math.round(n * 100) / 100);
      const info = { date, startedAt, machine, options, commit: commit + dirty, loadAverageEnd };
      const file = writeResult(join(ROOT, 'bench/results'), result, info, values.tag);
      log(`wrote ${file}`);
      for (const f of result.figures) {
        log(`  ${f.name}: ${Math.round(f.value * 100) / 100} ${f.unit} vs ${Math.round(f.baseline * 100) / 100} = ${f.ratio}${f.goal ? ` (${f.goal.met ? 'met' : 'MISSED'}: ${f.goal.text})` : ''}`);
      }
    } catch (error) {
      failed = true;
      console.error(`[bench] ${scenario.name} failed:`, error);
    }
  }
} finally {
  if (values.keep) log(`kept ${workDir}`);
  else await rm(workDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
