import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { recordSecret } from '../harness/run-record.ts';
import { type RecordedResponse, scanRun } from '../harness/secret-scan.ts';
import { ADMIN, ADMIN_KEY, type Stack, startStack } from './fixture.ts';

/**
 * The whole-run secret scan sees what goes through the edge: responses read
 * through the Worker, by the harness origin's edge (the through-edge
 * project) and by the edge tests' stack, are recorded as such, workerd's own
 * output is recorded, and a secret planted in an edge response is found.
 * This file records into a directory of its own, so what it plants never
 * reaches the run's record.
 */

let dir: string;
const saved = process.env.SLUICE_TEST_RUN_DIR;
let behind: Origin;
let stack: Stack;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-edge-record-'));
  process.env.SLUICE_TEST_RUN_DIR = dir;
  [behind, stack] = await Promise.all([startOrigin({ edge: true, env: { SLUICE_API_KEY: ADMIN_KEY } }), startStack()]);
});

afterAll(async () => {
  await Promise.all([behind?.stop(), stack?.stop()]);
  process.env.SLUICE_TEST_RUN_DIR = saved;
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function recorded(): Promise<RecordedResponse[]> {
  const files = await readdir(join(dir, 'responses'));
  const lines = (await Promise.all(files.map((file) => readFile(join(dir, 'responses', file), 'utf8')))).join('').split('\n');
  return lines.filter(Boolean).map((line) => JSON.parse(line) as RecordedResponse);
}

describe('the run record, through the edge', () => {
  it('holds the responses read through the edge, marked as such, and a log of each workerd', async () => {
    const viaHarness = await behind.call('GET', '/api/v1/me', undefined, ADMIN);
    expect(viaHarness.status).toBe(200);
    const viaStack = await stack.call('GET', '/api/v1/me', undefined, ADMIN);
    expect(viaStack.status).toBe(200);
    const direct = await stack.direct('GET', '/api/v1/me', undefined, ADMIN);
    expect(direct.status).toBe(200);
    const me = (await recorded()).filter((r) => r.path === '/api/v1/me');
    expect(me.map((r) => r.via).sort()).toEqual(['edge', 'edge', 'origin']);
    expect(me.every((r) => r.body.includes('"name"'))).toBe(true);
    // One log file per workerd (its own output), beside the origins'.
    const logs = await readdir(join(dir, 'logs'));
    expect(logs.filter((name) => /-workerd-/.test(name))).toHaveLength(2);
    expect(logs.filter((name) => /-origin-/.test(name))).toHaveLength(2);
  });

  it('finds a secret planted in a response read through the edge', async () => {
    const planted = `planted-${randomBytes(8).toString('hex')}`;
    recordSecret('planted secret', planted);
    for (const edge of [behind, stack]) {
      const res = await edge.call('POST', '/execute_sql', { sql: `SELECT '${planted}' AS leak`, connection_name: 'examples' }, ADMIN);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const scan = await scanRun(dir);
    const inEdgeResponses = scan.findings.filter((f) => f.kind.startsWith('planted secret in through the edge POST /execute_sql (200)'));
    expect(inEdgeResponses).toHaveLength(2);
  });
});
