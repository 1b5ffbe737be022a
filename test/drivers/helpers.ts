import { execFileSync } from 'node:child_process';
import { expect } from 'vitest';
import type { SluiceError } from '../../origin/errors.ts';
import type { DriverEnv, RunRequest } from '../../origin/drivers/types.ts';

export const PG = { type: 'postgres' as const, host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' };
export const MY = { type: 'mysql' as const, host: '127.0.0.1', port: 3306, user: 'root', database: 'test' };

export function env(overrides: Partial<DriverEnv> = {}): DriverEnv {
  return { poolSize: 2, poolMax: 10, poolIdleTimeoutMs: 60_000, allowWrites: false, ...overrides };
}

export function request(text: string, overrides: Partial<RunRequest> = {}): RunRequest {
  return {
    text,
    values: [],
    readOnly: true,
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    batchSize: 1000,
    ...overrides,
  };
}

export { readAll } from '../../origin/drivers/cursor.ts';

/** The rejection of a promise that must fail, as the SluiceError it is. */
export async function failure(promise: Promise<unknown>): Promise<SluiceError> {
  try {
    await promise;
  } catch (error) {
    expect((error as Error).name).toBe('SluiceError');
    return error as SluiceError;
  }
  throw new Error('expected a rejection');
}

/** Direct SQL against the test servers through their command-line clients (setup and inspection). */
export function psql(sql: string, database = 'test'): string {
  return execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', database, '-v', 'ON_ERROR_STOP=1', '-Atqc', sql], {
    encoding: 'utf8',
  }).trim();
}

export function mysqlCli(sql: string, database = 'test'): string {
  return execFileSync('mysql', ['-h', '127.0.0.1', '-uroot', '-N', '-B', database, '-e', sql], { encoding: 'utf8' }).trim();
}

/** PIDs of this process's children (the SQLite sessions). */
export function childPids(): number[] {
  try {
    const out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
    return out
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter(([pid, command]) => Number(pid) > 0 && command !== 'ps')
      .map(([pid]) => Number(pid));
  } catch {
    return [];
  }
}
