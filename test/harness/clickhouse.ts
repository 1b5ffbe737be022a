import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A ClickHouse server for tests: chdb (ClickHouse 26, the `chdb` devDependency)
 * behind the HTTP front of clickhouse-front.ts, in a process of its own with a
 * fresh data folder. One per test file; the front serves every client at once.
 */
export interface ClickhouseServer {
  url: string;
  host: string;
  port: number;
  /** Statements the front is streaming now (its own table: chdb shows none in system.processes). */
  processes(): Promise<{ query_id: string; query: string }[]>;
  /** Query ids KILL QUERY named, in order. */
  killed(): Promise<string[]>;
  /** Runs statements over HTTP with no settings (setup: writes and DDL). */
  exec(database: string, ...statements: string[]): Promise<void>;
  stop(): Promise<void>;
}

const FRONT = join(dirname(fileURLToPath(import.meta.url)), 'clickhouse-front.ts');
const TSX = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', '.bin', 'tsx');

export interface ClickhouseOptions {
  /** Default: a free one. */
  port?: number;
}

export async function startClickhouse(options: ClickhouseOptions = {}): Promise<ClickhouseServer> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-clickhouse-'));
  const child: ChildProcess = spawn(TSX, [FRONT, dir, String(options.port ?? 0)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) =>
      reject(new Error(`The ClickHouse test front (chdb) exited with ${code}: ${stderr.slice(-2000)} — is chdb installed (bash scripts/services.sh)?`)),
    );
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    host: '127.0.0.1',
    port,
    async processes() {
      return (await fetch(`${url}/processes`)).json() as Promise<{ query_id: string; query: string }[]>;
    },
    async killed() {
      return (await fetch(`${url}/killed`)).json() as Promise<string[]>;
    },
    async exec(database, ...statements) {
      for (const statement of statements) {
        const response = await fetch(`${url}/?database=${encodeURIComponent(database)}`, { method: 'POST', body: statement });
        const text = await response.text();
        if (!response.ok) throw new Error(`ClickHouse refused ${statement}: ${text}`);
      }
    },
    async stop() {
      // A front ended by a signal (a terminal's Ctrl-C reaches it too) has no exit code, and its exit event is past.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
