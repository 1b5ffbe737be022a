import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
 * which says so. They are not marked examples (examples.ts): their
 * first step starts a server other than the origin and runs until stopped.
 */

const run = promisify(execFile);
const ADMIN_KEY = 'stand-ins-admin-key-0123456789abcdef';

const PAGES = [
  { server: 's3', page: 'docs/reference/destinations.md' },
  { server: 'mongodb', page: 'docs/reference/mongodb.md' },
  { server: 'clickhouse', page: 'docs/reference/connections.md' },
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

/** Starts the page's command and waits for the `export` line it prints. */
async function standIn(command: string): Promise<{ child: ChildProcess; variables: Record<string, string>; output: () => string }> {
  const child = spawn('bash', ['-c', `exec ${command}`], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const variables = await new Promise<Record<string, string>>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^export (.*)$/m.exec(out);
      if (line) resolve(Object.fromEntries(line[1]!.split(' ').map((pair) => pair.split('=', 2) as [string, string])));
    });
    child.once('exit', (code) => reject(new Error(`${command} exited ${code} before its export line: ${out}`)));
  });
  return { child, variables, output: () => out };
}

/**
 * How the command ended, once every process of it has (npm may end by the
 * signal before the server it runs has stopped; the output closes when the
 * last holder of it exits).
 */
const stopped = (child: ChildProcess) => new Promise<string>((resolve) => child.once('close', (code, signal) => resolve(signal ?? `exit ${code}`)));

let origin: Origin;

beforeAll(async () => {
  recordSecret('stand-ins admin key', ADMIN_KEY);
  origin = await startOrigin({ edge: false, env: { SLUICE_API_KEY: ADMIN_KEY } });
});

afterAll(async () => {
  await origin?.stop();
});

describe.each(PAGES)('trying $server on one machine ($page)', ({ server, page }) => {
  it("starts with the page's command, answers the page's calls as shown, and stops on Ctrl-C", async () => {
    const { command, calls, answer } = steps(page, server);
    const { child, variables, output } = await standIn(command);
    try {
      if (variables.S3_SECRET) recordSecret('stand-in S3 secret', variables.S3_SECRET);
      const { stdout } = await run('bash', ['-c', `set -euo pipefail\n${calls.replaceAll('http://127.0.0.1:8080', origin.url)}`], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, SLUICE_ADMIN_KEY: ADMIN_KEY, ...variables },
      });
      expect(stdout.trim()).toBe(answer.trim());
    } finally {
      const exited = stopped(child);
      process.kill(-child.pid!, 'SIGINT');
      expect(['SIGINT', 'exit 0']).toContain(await exited);
      expect(output()).toContain(`${server}: stopped`);
    }
  }, 90_000);
});
