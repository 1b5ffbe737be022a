import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem, release, platform } from 'node:os';

/** What the numbers were measured on; written at the top of every result. */
export interface Machine {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  os: string;
  /** 1, 5 and 15-minute load averages when the scenario started. */
  loadAverage: [number, number, number];
  duckdb: string;
  postgres: string | null;
}

function postgresVersion(url: string): string | null {
  try {
    return execFileSync('psql', [url, '-XAtc', 'show server_version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

export async function describeMachine(pgUrl: string): Promise<Machine> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const duckdb = String((await connection.runAndReadAll('select version()')).getRows()[0][0]);
  connection.closeSync();
  instance.closeSync();
  const load = loadavg().map((n) => Math.round(n * 100) / 100) as [number, number, number];
  return {
    cores: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${platform()} ${release()}`,
    loadAverage: load,
    duckdb,
    postgres: postgresVersion(pgUrl),
  };
}

export function machineLines(m: Machine): string[] {
  return [
    `- CPU: ${m.cores} cores (${m.cpuModel})`,
    `- Memory: ${m.memoryGiB} GiB`,
    `- Node ${m.node} on ${m.os}; DuckDB ${m.duckdb}; PostgreSQL ${m.postgres ?? 'not reachable'}`,
    `- Load average at start: ${m.loadAverage.join(', ')}`,
  ];
}
