/**
 * `npx tsx bench/config-apply.ts [--queries N] [--store embedded|<postgres url>]`
 *
 * Times a configuration diff and then an apply of a file of N new queries
 * (default 10,000) against a real origin (`dist/origin/main.mjs`, built as
 * `npm start` builds it), polling /health every 20 ms throughout, and prints
 * the seconds each took and /health's answers, median and slowest. The
 * numbers recorded in docs/reference/config.md ("Limits") come from here.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuMs } from './lib/cpu.ts';
import { startBenchOrigin } from './lib/origin.ts';
import { ROOT } from './lib/process.ts';

const { values } = parseArgs({ options: { queries: { type: 'string', default: '10000' }, store: { type: 'string', default: 'embedded' } } });
const count = Number(values.queries);
const store = values.store === 'embedded' ? 'embedded' : { serverUrl: values.store! };

execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--quiet'], { cwd: ROOT, stdio: 'inherit' });
const workDir = await mkdtemp(join(tmpdir(), 'sluice-bench-config-'));
const origin = await startBenchOrigin(workDir, 'config', { store, env: { SLUICE_CONFIG_MAX_BYTES: String(16 * 2 ** 20) } });

try {
  await origin.addConnection({ name: 'warehouse', db: 'postgres', host: '127.0.0.1', port: 5432, database: 'test', user: 'postgres' });
  const file = {
    format: 'sluice-config',
    format_version: 1,
    queries: Array.from({ length: count }, (_, i) => ({
      name: `bench_q_${i}`,
      sql: `SELECT id, title FROM films WHERE id > :after ORDER BY id LIMIT ${i + 1}`,
      parameters: { after: 'integer' },
      connection_name: 'warehouse',
      collection: `bench-col${i % 20}`,
    })),
  };
  const body = JSON.stringify(file);
  console.log(`file: ${count} queries, ${(body.length / 2 ** 20).toFixed(2)} MiB, store ${values.store}`);
  for (const verb of ['diff', 'apply'] as const) {
    const started = performance.now();
    const cpuBefore = cpuMs(origin.pid);
    const call = fetch(`${origin.url}/api/v1/config/${verb}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (res) => ({
      status: res.status,
      body: (await res.json()) as { counts?: { queries: { create: number } } },
    }));
    const health = await pollHealth(origin.url, call);
    const reply = await call;
    const seconds = (performance.now() - started) / 1000;
    const cpu = (cpuMs(origin.pid) - cpuBefore) / 1000;
    const sorted = [...health].sort((a, b) => a - b);
    console.log(
      `${verb}: ${reply.status} create=${reply.body.counts?.queries.create} in ${seconds.toFixed(1)} s (origin CPU ${cpu.toFixed(1)} s, load ${loadavg()[0]!.toFixed(1)}); /health answers ${health.length}, median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)} ms, slowest ${sorted.at(-1)?.toFixed(1)} ms, over 100 ms ${sorted.filter((ms) => ms > 100).length}`,
    );
  }
} finally {
  await origin.stop();
  await rm(workDir, { recursive: true, force: true });
}

/** /health every 20 ms until `done` settles: each answer's milliseconds. */
async function pollHealth(url: string, done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const times: number[] = [];
  while (!finished) {
    const started = performance.now();
    const res = await fetch(`${url}/health`);
    await res.text();
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return times;
}
