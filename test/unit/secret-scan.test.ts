import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordingFetch } from '../harness/run-record.ts';
import { FULL_RUN_MINIMUMS, type RecordedResponse, scanLines, scanRun, searchable, shortfalls } from '../harness/secret-scan.ts';

const ISSUED = `slc_${'A1b2C3d4'.repeat(4)}`;
const TOKEN = `slc_adm_${'Z9y8X7w6'.repeat(4)}`;
const PASSWORD = 'pw_3f9a1c0d7e';

describe('scanLines', () => {
  it('finds each planted secret by kind and line, never reporting the value', () => {
    const lines = ['{"msg":"fine"}', `{"msg":"leak","pw":"${PASSWORD}"}`, 'nothing', `Bearer ${TOKEN}`];
    const findings = scanLines('f.log', lines, [
      { kind: 'connection password', value: PASSWORD },
      { kind: 'issued administrator token', value: TOKEN },
    ]);
    expect(findings).toEqual([
      { file: 'f.log', line: 2, kind: 'connection password' },
      { file: 'f.log', line: 4, kind: 'issued administrator token' },
    ]);
    expect(JSON.stringify(findings)).not.toContain(PASSWORD);
  });

  it('finds an issued-looking secret nobody recorded, in logs only', () => {
    expect(scanLines('f.log', [`key=${ISSUED}`], [], true)).toEqual([{ file: 'f.log', line: 1, kind: 'issued-looking secret' }]);
    expect(scanLines('r.jsonl', [`key=${ISSUED}`], [])).toEqual([]);
    // A key's shown prefix is not a secret.
    expect(scanLines('f.log', ['prefix slc_A1b2'], [], true)).toEqual([]);
  });

  it('finds a secret URL-encoded or JSON-escaped, naming the form', () => {
    const odd = 'p@ss/w"rd\\x+y z';
    const findings = scanLines('f.log', [`GET /x?pw=${encodeURIComponent(odd)}`, JSON.stringify({ pw: odd }), `raw ${odd}`], [{ kind: 'connection password', value: odd }]);
    expect(findings.map((f) => [f.line, f.kind])).toEqual([
      [1, 'connection password (URL-encoded)'],
      [2, 'connection password (JSON-escaped)'],
      [3, 'connection password'],
    ]);
  });

  it('skips short values and plain words, which turn up legitimately', () => {
    const kept = searchable([
      { kind: 'a', value: 'postgres' },
      { kind: 'b', value: 'x1' },
      { kind: 'c', value: PASSWORD },
      { kind: 'd', value: PASSWORD },
    ]);
    expect(kept).toEqual([{ kind: 'c', value: PASSWORD }]);
    expect(scanLines('f.log', ['user postgres'], [{ kind: 'a', value: 'postgres' }])).toEqual([]);
  });
});

describe('a recorded run', () => {
  let dir: string | undefined;
  const saved = process.env.SLUICE_TEST_RUN_DIR;
  afterEach(async () => {
    process.env.SLUICE_TEST_RUN_DIR = saved;
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('records issued secrets, excludes only the issuing response, and finds them elsewhere', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sluice-scan-unit-'));
    process.env.SLUICE_TEST_RUN_DIR = dir;
    const answers: Record<string, string> = {
      '/api/v1/api-keys': JSON.stringify({ name: 'k', secret: ISSUED }),
      '/api/v1/connections/c': JSON.stringify({ name: 'c', password: '********', echoed: ISSUED }),
      '/api/v1/connections': JSON.stringify({ name: 'c', password: PASSWORD }),
    };
    const fetch = recordingFetch(async (path) => new Response(answers[path.split('?')[0]!]!, { status: 201, headers: { 'content-type': 'application/json' } }));
    expect(await (await fetch('/api/v1/api-keys', { method: 'POST', json: {} })).json()).toEqual({ name: 'k', secret: ISSUED });
    await (await fetch('/api/v1/connections/c?x=1')).text();
    await (await fetch('/api/v1/connections', { method: 'POST', json: { name: 'c', password: PASSWORD } })).text();
    // Unread: not recorded, as the test never saw it.
    await fetch('/api/v1/connections', { method: 'POST', json: { name: 'd', password: '${DB_PASSWORD}' } });
    await mkdir(join(dir, 'logs'));
    await writeFile(join(dir, 'logs', '1-1-x.log'), `{"msg":"ok"}\n{"msg":"bad","password":"${PASSWORD}"}\n`);

    const secrets = await readFile(join(dir, 'secrets', `${process.pid}.jsonl`), 'utf8');
    expect(secrets).not.toContain('DB_PASSWORD');
    const scan = await scanRun(dir);
    expect(scan).toMatchObject({ logLines: 2, responses: 3, edgeResponses: 0, secrets: 2 });
    expect(scan.findings.map((f) => [f.file.replace(dir!, ''), f.line, f.kind.split(' in ')[0]])).toEqual([
      ['/logs/1-1-x.log', 2, 'connection password'],
      [`/responses/${process.pid}.jsonl`, 2, 'issued key'],
      [`/responses/${process.pid}.jsonl`, 3, 'connection password'],
    ]);
  });

  it('finds nothing in a clean run', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sluice-scan-unit-'));
    await mkdir(join(dir, 'logs'));
    await writeFile(join(dir, 'logs', '1-1-x.log'), '{"msg":"ok"}\n');
    expect(await scanRun(dir)).toEqual({ logLines: 1, responses: 0, edgeResponses: 0, secrets: 0, findings: [] });
  });

  /** A record dir as run-record.ts writes it. */
  async function record(files: { logs?: string[]; responses?: RecordedResponse[]; secrets?: { kind: string; value: string }[] }) {
    dir = await mkdtemp(join(tmpdir(), 'sluice-scan-unit-'));
    for (const [kind, lines] of Object.entries(files)) {
      await mkdir(join(dir, kind));
      const text = lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line)));
      await writeFile(join(dir, kind, kind === 'logs' ? '1-1-origin-x.log' : '1.jsonl'), text.map((line) => `${line}\n`).join(''));
    }
    return dir;
  }
  const response = (via: 'edge' | 'origin', body: string): RecordedResponse => ({ test: 'q.test.ts', via, method: 'GET', path: '/q/films', status: 200, issuing: false, body });

  it('finds a planted secret in a response read through the edge, and says so', async () => {
    const scan = await scanRun(
      await record({
        logs: ['workerd started'],
        responses: [response('origin', '{"ok":true}'), response('edge', `{"leak":"${PASSWORD}"}`)],
        secrets: [{ kind: 'connection password', value: PASSWORD }],
      }),
    );
    expect(scan).toMatchObject({ responses: 2, edgeResponses: 1 });
    expect(scan.findings).toEqual([{ file: join(dir!, 'responses', '1.jsonl'), line: 2, kind: 'connection password in through the edge GET /q/films (200) of q.test.ts' }]);
  });

  it('holds a full run to minimum counts: a record with no responses, or nothing at all, falls short', async () => {
    const noResponses = await scanRun(await record({ logs: Array.from({ length: 5 }, (_, i) => `line ${i}`), secrets: [{ kind: 'k', value: PASSWORD }] }));
    expect(noResponses.findings).toEqual([]);
    expect(shortfalls(noResponses)).toEqual([
      `5 logLines, at least ${FULL_RUN_MINIMUMS.logLines} expected`,
      `0 responses, at least ${FULL_RUN_MINIMUMS.responses} expected`,
      `0 edgeResponses, at least ${FULL_RUN_MINIMUMS.edgeResponses} expected`,
      `1 secrets, at least ${FULL_RUN_MINIMUMS.secrets} expected`,
    ]);
    await rm(dir!, { recursive: true, force: true });
    expect(shortfalls(await scanRun(join(tmpdir(), 'sluice-no-such-record')))).toHaveLength(4);
    const enough = { logLines: 3, responses: 2, edgeResponses: 1, secrets: 1, findings: [] };
    expect(shortfalls(enough, { logLines: 3, responses: 2, edgeResponses: 1, secrets: 1 })).toEqual([]);
    expect(shortfalls({ ...enough, edgeResponses: 0 }, { logLines: 3, responses: 2, edgeResponses: 1, secrets: 1 })).toEqual(['0 edgeResponses, at least 1 expected']);
  });
});
