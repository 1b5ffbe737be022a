import { loadavg } from 'node:os';
import type { BenchContext, Scenario } from '../lib/context.ts';
import { cpuMs } from '../lib/cpu.ts';
import { download } from '../lib/download.ts';
import { prepareFilms, sessionCounter, type SessionCounter } from '../lib/films.ts';
import { loadTest, warmUp, type LoadResult, type LoadTarget } from '../lib/load.ts';
import { watchPeak } from '../lib/memory.ts';
import { CACHED_ID, PAGE_ROWS, POSTGRAPHILE_TABLE_PAGE, SERVERS, cachedRowTarget, pageTarget, readAllPages, rowTarget, type ServerName, type Urls } from '../lib/peer-targets.ts';
import { PLATFORMATIC_MAX_PAGE, POOL_SIZE, installPeers, peerVersion, startPlatformatic, startPostgraphile } from '../lib/peers.ts';
import { startPeersOrigin } from '../lib/peers-sluice.ts';
import type { Server } from '../lib/process.ts';
import type { Figure } from '../lib/report.ts';
import { median, ratio } from '../lib/stats.ts';

/** The issue's table: 1,000,000 films (fewer with a smaller `--rows`, for a quick pass). */
const FILMS_ROWS = 1_000_000;
const PEERS = ['postgraphile', 'platformatic'] as const;
type Peer = (typeof PEERS)[number];

interface LoadRound extends LoadResult {
  server: ServerName;
  /** Microseconds of the server process's CPU (user and system, all threads) per request answered in the round. */
  cpuUsPerRequest: number;
  /** Sessions on the films database opened while the load was steady: from 1 s into the measured run to 1 s before its end (films.ts). */
  newSessions: number;
  loadAverage: number[];
}

interface TableRun {
  server: ServerName | 'sluice-csv';
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  peakRssMiB: number;
}

/** How long after a run's start, and before its end, the session count is read. */
const STEADY_MARGIN_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const load1 = () => loadavg().map((n) => Math.round(n * 100) / 100);

/**
 * `runs` rounds of each server's load test, the servers' order turned
 * round by round so none always runs first; a warm-up of each beforehand.
 */
async function loadCase(ctx: BenchContext, label: string, targets: Partial<Record<ServerName, LoadTarget>>, connections: number, sessions: SessionCounter, pids: Record<ServerName, number>): Promise<LoadRound[]> {
  const order = SERVERS.filter((s) => targets[s]);
  for (const s of order) await warmUp(targets[s]!, connections, Math.min(2, ctx.seconds));
  const rounds: LoadRound[] = [];
  for (let run = 0; run < ctx.runs; run++) {
    for (let i = 0; i < order.length; i++) {
      const server = order[(i + run) % order.length];
      // Read while the load is steady: a run's start fills the pool, and its end cuts requests in flight (whose sessions are dropped).
      const steady = (async () => {
        await sleep(STEADY_MARGIN_MS);
        const watch = await sessions.watch();
        await sleep(ctx.seconds * 1000 - 2 * STEADY_MARGIN_MS);
        return watch.stop();
      })();
      const cpuBefore = cpuMs(pids[server]);
      const result = await loadTest(targets[server]!, connections, ctx.seconds);
      const cpuUsPerRequest = ((cpuMs(pids[server]) - cpuBefore) * 1000) / Math.max(1, result.requests);
      const newSessions = await steady;
      rounds.push({ ...result, server, cpuUsPerRequest, newSessions, loadAverage: load1() });
      ctx.log(`  ${label}, ${server}: ${Math.round(result.requestsPerSecond)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ${Math.round(cpuUsPerRequest)} µs CPU a request, ${result.failures} failures, ${newSessions} new sessions`);
    }
  }
  return rounds;
}

const med = (rounds: LoadRound[], server: ServerName, pick: (r: LoadRound) => number) => median(rounds.filter((r) => r.server === server).map(pick));

/** The peer with the higher median of `pick` (or the lower, for latencies). */
function bestPeer(rounds: LoadRound[], pick: (r: LoadRound) => number, lower = false): { peer: Peer; value: number } {
  const [a, b] = PEERS.map((peer) => ({ peer, value: med(rounds, peer, pick) }));
  return (lower ? a.value <= b.value : a.value >= b.value) ? a : b;
}

function loadFigures(label: string, rounds: LoadRound[], rateGoal: number | null, p99Goal: boolean): Figure[] {
  const rate = med(rounds, 'sluice', (r) => r.requestsPerSecond);
  const fast = bestPeer(rounds, (r) => r.requestsPerSecond);
  const rateRatio = ratio(rate, fast.value);
  const figures: Figure[] = [{
    name: `${label}: Sluice req/s`, value: rate, unit: 'req/s', baselineName: `${fast.peer}, the faster peer`, baseline: fast.value, ratio: rateRatio,
    ...(rateGoal === null ? {} : { goal: { text: `>= ${rateGoal}x the faster peer`, met: rateRatio >= rateGoal } }),
  }];
  for (const [which, pick] of [['p50', (r: LoadRound) => r.p50Ms], ['p99', (r: LoadRound) => r.p99Ms]] as const) {
    const value = med(rounds, 'sluice', pick);
    const low = bestPeer(rounds, pick, true);
    const r = ratio(value, low.value);
    figures.push({
      name: `${label}: Sluice ${which}`, value, unit: 'ms', baselineName: `${low.peer}, the lower peer`, baseline: low.value, ratio: r,
      ...(which === 'p99' && p99Goal ? { goal: { text: "<= both peers' p99", met: value <= low.value } } : {}),
    });
  }
  const cpu = med(rounds, 'sluice', (r) => r.cpuUsPerRequest);
  const lean = bestPeer(rounds, (r) => r.cpuUsPerRequest, true);
  figures.push({ name: `${label}: Sluice CPU per request`, value: cpu, unit: 'µs', baselineName: `${lean.peer}, the leaner peer`, baseline: lean.value, ratio: ratio(cpu, lean.value) });
  return figures;
}

async function sluiceTable(ctx: BenchContext, origin: Server, key: string, format: 'ndjson' | 'csv', rows: number): Promise<TableRun> {
  const watch = watchPeak(origin.pid);
  const got = await download(`${origin.url}/q/films_all`, { stream: true, format }, undefined, { 'x-api-key': key });
  const peakRssMiB = watch.stop();
  origin.assertAlive();
  const read = got.lines - (format === 'csv' ? 1 : 0);
  if (got.status !== 200 || read !== rows) throw new Error(`Sluice ${format} stream: status ${got.status}, ${read} rows of ${rows}`);
  return { server: format === 'csv' ? 'sluice-csv' : 'sluice', rows, seconds: got.seconds, rowsPerSecond: rows / got.seconds, peakRssMiB };
}

async function peerTable(peer: Peer, server: Server, urls: Urls, rows: number): Promise<TableRun> {
  const watch = watchPeak(server.pid);
  const started = performance.now();
  const read = await readAllPages(peer, urls, peer === 'platformatic' ? PLATFORMATIC_MAX_PAGE : POSTGRAPHILE_TABLE_PAGE);
  const seconds = (performance.now() - started) / 1000;
  const peakRssMiB = watch.stop();
  server.assertAlive();
  if (read !== rows) throw new Error(`${peer} paged ${read} rows of ${rows}`);
  return { server: peer, rows, seconds, rowsPerSecond: rows / seconds, peakRssMiB };
}

function tableFigures(runs: TableRun[]): Figure[] {
  const m = (server: TableRun['server'], pick: (r: TableRun) => number) => median(runs.filter((r) => r.server === server).map(pick));
  const [a, b] = PEERS.map((peer) => ({ peer, rate: m(peer, (r) => r.rowsPerSecond), rss: m(peer, (r) => r.peakRssMiB) }));
  const fast = a.rate >= b.rate ? a : b;
  return (['sluice', 'sluice-csv'] as const).flatMap((s) => {
    const label = s === 'sluice' ? 'whole table, stream=true ndjson' : 'whole table, stream=true csv';
    const rate = m(s, (r) => r.rowsPerSecond);
    const rss = m(s, (r) => r.peakRssMiB);
    const rateRatio = ratio(rate, fast.rate);
    const rssRatio = ratio(rss, fast.rss);
    return [
      { name: `${label}: Sluice rows/s`, value: rate, unit: 'rows/s', baselineName: `${fast.peer} paging, the faster peer`, baseline: fast.rate, ratio: rateRatio, goal: { text: '>= 3x the faster peer', met: rateRatio >= 3 } },
      { name: `${label}: Sluice peak RSS`, value: rss, unit: 'MiB', baselineName: `${fast.peer}'s peak RSS`, baseline: fast.rss, ratio: rssRatio, goal: { text: "<= 1/2 the faster peer's", met: rssRatio <= 0.5 } },
    ];
  });
}

/** Sluice against PostGraphile 4 and Platformatic DB 2 on the same PostgreSQL table (only when named). */
export const peers: Scenario = {
  name: 'peers',
  async run(ctx) {
    installPeers(ctx.log);
    const rows = Math.min(ctx.rows, FILMS_ROWS);
    const dbUrl = await prepareFilms(ctx.pgUrl, rows, ctx.log);
    const loadAverageStart = load1();
    const sessions = await sessionCounter(dbUrl);
    const sluice = await startPeersOrigin(ctx, dbUrl);
    const started: Server[] = [sluice.origin];
    try {
      const pg = await startPostgraphile(dbUrl, ctx.workDir);
      started.push(pg);
      const pl = await startPlatformatic(dbUrl, ctx.workDir);
      started.push(pl);
      const urls: Urls = { sluice: sluice.origin.url, postgraphile: pg.url, platformatic: pl.url, key: sluice.key };
      const byPeer = { postgraphile: pg, platformatic: pl };
      const pids: Record<ServerName, number> = { sluice: sluice.origin.pid, postgraphile: pg.pid, platformatic: pl.pid };
      const each = (make: (s: ServerName) => LoadTarget) => Object.fromEntries(SERVERS.map((s) => [s, make(s)])) as Record<ServerName, LoadTarget>;

      const row1 = await loadCase(ctx, 'single row, 1 connection', each((s) => rowTarget(s, urls, rows)), 1, sessions, pids);
      const row32 = await loadCase(ctx, 'single row, 32 connections', each((s) => rowTarget(s, urls, rows)), 32, sessions, pids);
      const page = await loadCase(ctx, `${PAGE_ROWS}-row page, 8 connections`, each((s) => pageTarget(s, urls, rows)), 8, sessions, pids);
      const cached = await loadCase(ctx, 'cached single row, 32 connections', { sluice: cachedRowTarget(urls) }, 32, sessions, pids);

      const table: TableRun[] = [];
      for (let run = 0; run < ctx.runs; run++) {
        const steps = [
          () => sluiceTable(ctx, sluice.origin, sluice.key, 'ndjson', rows),
          () => peerTable('postgraphile', byPeer.postgraphile, urls, rows),
          () => sluiceTable(ctx, sluice.origin, sluice.key, 'csv', rows),
          () => peerTable('platformatic', byPeer.platformatic, urls, rows),
        ];
        for (let i = 0; i < steps.length; i++) {
          const r = await steps[(i + run) % steps.length]();
          ctx.log(`  whole table, ${r.server}: ${Math.round(r.rowsPerSecond).toLocaleString('en-US')} rows/s, peak RSS ${r.peakRssMiB.toFixed(0)} MiB`);
          table.push(r);
        }
      }

      const sluiceNew = Math.max(...row32.filter((r) => r.server === 'sluice').map((r) => r.newSessions));
      const cachedRate = median(cached.map((r) => r.requestsPerSecond));
      const fast32 = bestPeer(row32, (r) => r.requestsPerSecond);
      const figures: Figure[] = [
        ...loadFigures('single row, 1 connection', row1, 1.0, true),
        ...loadFigures('single row, 32 connections', row32, 1.2, true),
        {
          name: 'single row, 32 connections: new database sessions while Sluice\'s load was steady (most in a round)', value: sluiceNew, unit: 'sessions',
          baselineName: 'none', baseline: 0, ratio: NaN, goal: { text: 'no new session during steady load (0)', met: sluiceNew === 0 },
        },
        ...loadFigures(`${PAGE_ROWS}-row page, 8 connections`, page, 1.5, false),
        ...tableFigures(table),
        { name: `cached single row (id ${CACHED_ID}), 32 connections: Sluice req/s`, value: cachedRate, unit: 'req/s', baselineName: `${fast32.peer}, uncached random rows`, baseline: fast32.value, ratio: ratio(cachedRate, fast32.value) },
      ];
      const versions = { postgraphile: peerVersion('postgraphile'), platformatic: peerVersion('@platformatic/db'), node: process.version };
      return {
        scenario: 'peers',
        title: 'Sluice against PostGraphile 4 and Platformatic DB 2 on the same PostgreSQL table',
        method: [
          `\`films\`: ${rows.toLocaleString('en-US')} rows of the other PostgreSQL scenarios' six columns, \`id\` the primary key, in the database \`sluice_bench_peers\` (nothing else runs there, so its sessions are only the servers measured).`,
          `Sluice: the origin bundle as every scenario starts it, SLUICE_POOL_SIZE and SLUICE_POOL_MAX ${POOL_SIZE}, its store on PostgreSQL in another database, authentication on; saved queries under \`GET /q/<name>\` called with a scoped key granted them, access log at info into a file.`,
          `PostGraphile ${versions.postgraphile}: its CLI, \`--max-pool-size ${POOL_SIZE} --disable-graphiql --disable-query-log --no-setof-functions-contain-nulls --disable-default-mutations\`, NODE_ENV=production; \`filmById\` and \`allFilms(first, after, orderBy: PRIMARY_KEY_ASC)\` (keyset through its primary-key cursors).`,
          `Platformatic DB ${versions.platformatic}: \`plt-db start\` (not \`dev\`), \`db.poolSize\` ${POOL_SIZE}, \`db.limit.max\` ${PLATFORMATIC_MAX_PAGE}, GraphQL off, logger at warn, NODE_ENV=production; \`GET /films/:id\` and \`GET /films?where.id.gt=...&orderby.id=asc&limit=...\`.`,
          `Single row: a random id per request. ${PAGE_ROWS}-row page: \`id > :after order by id limit ${PAGE_ROWS}\` from a random \`after\`. Both through autocannon in the bench process (per-request builder for every server alike): a warm-up of each, then ${ctx.runs} rounds of ${ctx.seconds} s per server, the servers' order turned each round; medians.`,
          `Whole table: Sluice \`POST /q/films_all\` with \`stream=true\` as ndjson and as csv; the peers paging by keyset at their largest page (Platformatic ${PLATFORMATIC_MAX_PAGE}; PostGraphile has none, so ${POSTGRAPHILE_TABLE_PAGE.toLocaleString('en-US')}), each page parsed by the bench for its last id; ${ctx.runs} rounds, order turned. Peak RSS of each server's process.`,
          `Cached single row: \`films_row_cached\` (cache_ttl 3600), always id ${CACHED_ID}, against the faster peer's uncached random rows (no peer caches).`,
          'CPU per request: the server process\'s user and system time (all its threads, from /proc) over the requests it answered in the round; medians. Every server runs on the same two cores as the load generator and PostgreSQL.',
          `Sessions: the films database's client backends (pg_stat_activity, polled every 100 ms) from ${STEADY_MARGIN_MS / 1000} s into every measured run to ${STEADY_MARGIN_MS / 1000} s before its end, while the load is steady (a run's start fills the pool; its end cuts the requests in flight, whose sessions are dropped): those not there when the window opened. Not pg_stat_database.sessions, which a busy backend may update seconds after it opened. The goal reads Sluice at 32 connections.`,
        ],
        figures,
        notes: [
          `Versions: PostGraphile ${versions.postgraphile}, Platformatic DB ${versions.platformatic}, Node ${versions.node}. Pool size ${POOL_SIZE} each. Load average at start ${loadAverageStart.join(', ')}.`,
          `New sessions per measured run (all rounds): ${SERVERS.map((s) => `${s} ${[...row1, ...row32, ...page].filter((r) => r.server === s).map((r) => r.newSessions).join('/')}`).join('; ')}.`,
          "Pool size: each server caps the sessions open at it (Sluice's SLUICE_POOL_MAX; its SLUICE_POOL_SIZE is the idle ones kept, set alike).",
          'The peers log no request lines (PostGraphile --disable-query-log, Platformatic at warn); Sluice writes its access line per request, as in production.',
        ],
        samples: { versions, poolSize: POOL_SIZE, loadAverageStart, row1, row32, page, cached, table },
      };
    } finally {
      await Promise.all(started.map((s) => s.stop()));
      await sessions.end();
    }
  },
};
