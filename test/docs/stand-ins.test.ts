import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness/edge.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { recordSecret } from '../harness/run-record.ts';
import { fencedBlocks } from './examples.ts';
import { ROOT } from './run-page.ts';

/**
 * The "try it on one machine" steps of the destinations, MongoDB and
 * ClickHouse pages, as a reader runs them: the page's `npm run stand-in`
 * command as a process of its own, its `export` line, then the page's next
 * `sh` block against an origin (its address standing for the reader's
 * 127.0.0.1:8080), whose output must be the page's `text` block after it;
 * then Ctrl-C (SIGINT to the command's process group) stops the server,
 * which exits 0 and leaves no data folder. Each server also starts on the
 * port `--port` names and stops as cleanly on a SIGTERM to npm alone. The
 * steps are not marked examples (examples.ts): their first starts a server
 * other than the origin and runs until stopped.
 */

const run = promisify(execFile);
const ADMIN_KEY = 'stand-ins-admin-key-0123456789abcdef';

/** Each server's page, whether it keeps a data folder, and the variables that name its port. */
const PAGES = [
  { server: 's3', page: 'docs/reference/destinations.md', folder: true, at: (port: number) => ({ S3_ENDPOINT: `http://127.0.0.1:${port}` }) },
  { server: 'mongodb', page: 'docs/reference/mongodb.md', folder: false, at: (port: number) => ({ MONGO_HOST: '127.0.0.1', MONGO_PORT: String(port) }) },
  { server: 'clickhouse', page: 'docs/reference/connections.md', folder: true, at: (port: number) => ({ CLICKHOUSE_HOST: '127.0.0.1', CLICKHOUSE_PORT: String(port) }) },
];

/** The page's block starting the stand-in, the `sh` block after it and the `text` block after that. */
function steps(page: string, server: string): { command: string; calls: string; answer: string } {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
  const blocks = fencedBlocks(lines).map(({ start, end, lang }) => ({ lang, body: lines.slice(start + 1, end).join('\n') }));
  const at = blocks.findIndex((block) => block.lang === 'sh' && block.body.includes(`npm run stand-in -- ${server}`));
  const calls = blocks.slice(at + 1).find((block) => block.lang === 'sh');
  const answer = blocks.slice(blocks.indexOf(calls!) + 1).find((block) => block.lang === 'text');
  if (at < 0 || !calls || !answer) throw new Error(`${page}: no stand-in command for ${server}, with calls and their answer after it`);
  return { command: blocks[at]!.body.trim(), calls: calls.body, answer: answer.body };
}

interface StandIn {
  child: ChildProcess;
  variables: Record<string, string>;
  output: () => string;
  /** Its own temporary folder (TMPDIR), where its data folder goes. */
  tmp: string;
}

/** Starts a command in a process group of its own, as a terminal does, and waits for the `export` line it prints. */
async function standIn(command: string): Promise<StandIn> {
  const tmp = mkdtempSync(join(tmpdir(), 'stand-in-tmp-'));
  const child = spawn('bash', ['-c', `exec ${command}`], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: tmp } });
  let out = '';
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const variables = await new Promise<Record<string, string>>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^export (.*)\n/m.exec(out);
      if (line) resolve(Object.fromEntries(line[1]!.split(' ').map((pair) => pair.split('=', 2) as [string, string])));
    });
    child.once('exit', (code) => reject(new Error(`${command} exited ${code} before its export line: ${out}`)));
  });
  if (variables.S3_SECRET) recordSecret('stand-in S3 secret', variables.S3_SECRET);
  return { child, variables, output: () => out, tmp };
}

/** The lines a terminal shows: a csv object's line ends are CRLF. */
const shown = (text: string) => text.trim().split('\n').map((line) => line.trimEnd());

/** The data folders the harness makes (sluice-s3-…, sluice-clickhouse-…) in the command's temporary folder. */
const dataFolders = (tmp: string) => readdirSync(tmp).filter((name) => name.startsWith('sluice-'));

/** How the command ended, once every process of it has (the output closes when the last holder of it exits). */
const stopped = (child: ChildProcess) => new Promise<string>((resolve) => child.once('close', (code, signal) => resolve(signal ?? `exit ${code}`)));

/** Sends a signal (to the process group: a terminal's Ctrl-C; else to npm alone) and expects a clean stop. */
async function stop(stand: StandIn, server: string, signal: NodeJS.Signals, to: 'group' | 'npm'): Promise<void> {
  const exited = stopped(stand.child);
  process.kill(to === 'group' ? -stand.child.pid! : stand.child.pid!, signal);
  try {
    expect(await exited, stand.output()).toBe('exit 0');
    expect(stand.output()).toContain(`${server}: stopped, its data removed\n`);
    expect(dataFolders(stand.tmp)).toEqual([]);
  } finally {
    // After a failed stop, nothing of it may outlive the test (the ClickHouse front is a process of the same group).
    try {
      process.kill(-stand.child.pid!, 'SIGKILL');
    } catch {
      // the group is gone: the stop was clean
    }
    rmSync(stand.tmp, { recursive: true, force: true });
  }
}

let origin: Origin;

beforeAll(async () => {
  recordSecret('stand-ins admin key', ADMIN_KEY);
  origin = await startOrigin({ edge: false, env: { SLUICE_API_KEY: ADMIN_KEY } });
});

afterAll(async () => {
  await origin?.stop();
});

describe.each(PAGES)('trying $server on one machine ($page)', ({ server, page, folder, at }) => {
  it("starts with the page's command, answers the page's calls as shown, and stops on Ctrl-C", async () => {
    const { command, calls, answer } = steps(page, server);
    const stand = await standIn(command);
    try {
      expect(dataFolders(stand.tmp)).toHaveLength(folder ? 1 : 0);
      const { stdout } = await run('bash', ['-c', `set -euo pipefail\n${calls.replaceAll('http://127.0.0.1:8080', origin.url)}`], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, SLUICE_ADMIN_KEY: ADMIN_KEY, ...stand.variables },
      });
      expect(shown(stdout)).toEqual(shown(answer));
    } finally {
      await stop(stand, server, 'SIGINT', 'group');
    }
  }, 90_000);

  it('listens on the port --port names, and stops on a SIGTERM to npm alone', async () => {
    const port = await freePort();
    const stand = await standIn(`npm run stand-in -- ${server} --port ${port}`);
    try {
      expect(stand.variables).toMatchObject(at(port));
    } finally {
      await stop(stand, server, 'SIGTERM', 'npm');
    }
  }, 60_000);
});

describe('the command itself', () => {
  it('explains itself on --help, and names the choices when given an unknown one', async () => {
    const help = await run('npm', ['run', '--silent', 'stand-in', '--', '--help'], { cwd: ROOT });
    expect(help.stdout).toContain('Usage: npm run stand-in -- s3|mongodb|clickhouse [--port N]');
    const unknown = await run('npm', ['run', '--silent', 'stand-in', '--', 'postgres'], { cwd: ROOT }).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(unknown).toMatchObject({ code: 1, stderr: 'stand-in: no stand-in named postgres: s3, mongodb, clickhouse (npm run stand-in -- --help)\n' });
  });
});
