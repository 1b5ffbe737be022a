import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import launch from '../../scripts/origin-launch.json';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Server {
  url: string;
  /** The pid of the Node process serving (not a wrapper: RSS is read from it). */
  pid: number;
  /** Where the process's stdout and stderr go (never through a pipe the bench would have to drain). */
  logFile: string;
  /** Throws, with the end of the log, when the process has exited. */
  assertAlive(): void;
  stop(): Promise<void>;
}

/** `SLUICE_BENCH_NODE_FLAGS`: extra Node flags for the origin, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it. */
function originFlags(): string[] {
  return (process.env.SLUICE_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
}

/**
 * Starts a server as one Node process (so its pid is the server's own): a
 * built `.mjs` (the origin) with the flags and environment `npm start` gives
 * it (scripts/origin-launch.json), a TypeScript file through `--import tsx`.
 * Logs go to a file; waits for the line carrying `"port":N` and `listening`.
 */
export async function startServer(script: string, env: Record<string, string>, logFile: string): Promise<Server> {
  const out = openSync(logFile, 'a');
  const built = script.endsWith('.mjs');
  const flags = built ? [...launch.nodeFlags, ...originFlags()] : ['--import', 'tsx'];
  const child: ChildProcess = spawn(process.execPath, [...flags, join(ROOT, script)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...(built ? launch.env : {}), ...env },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  const port = await new Promise<number>((resolve, reject) => {
    const deadline = Date.now() + 90_000;
    const poll = setInterval(() => {
      const text = readFileSync(logFile, 'utf8');
      const line = text.split('\n').find((l) => l.includes('listening') && /"port":\d+/.test(l));
      if (line) {
        clearInterval(poll);
        resolve(Number(/"port":(\d+)/.exec(line)![1]));
      } else if (child.exitCode !== null || Date.now() > deadline) {
        clearInterval(poll);
        reject(new Error(`${script} did not start (exit ${child.exitCode}):\n${text.slice(-2000)}`));
      }
    }, 50);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    logFile,
    assertAlive() {
      if (child.exitCode === null && child.signalCode === null) return;
      const tail = readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');
      throw new Error(`${script} (pid ${child.pid}) exited (${child.exitCode ?? child.signalCode}); end of its log:\n${tail}`);
    },
    stop: () => stopChild(child),
  };
}

/** SIGTERM, then SIGKILL when it has not exited within 10 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}
