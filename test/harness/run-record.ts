import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { SECRET_VARIABLE } from '../../origin/env.ts';
import { ISSUED_SECRET, type RecordedResponse, type Secret } from './secret-scan.ts';

/**
 * Records what the whole-run secret scan (secret-scan.ts, run from
 * global-setup.ts) searches: the output of each origin and each edge
 * (workerd), each response the harness's `fetch`/`call` read (from an origin
 * or through an edge), and each secret the harness and the tests know of.
 * Writes are synchronous: a test worker may exit without flushing streams.
 * Off when SLUICE_TEST_RUN_DIR is unset.
 */

const runDir = () => process.env.SLUICE_TEST_RUN_DIR;
/** The test file under way in this worker (vitest's worker state), for findings. */
const currentTest = (): string | undefined => (globalThis as { __vitest_worker__?: { filepath?: string } }).__vitest_worker__?.filepath;

let logCount = 0;
const files = new Map<string, number>();

function append(kind: 'secrets' | 'responses', line: string): void {
  const dir = runDir();
  if (!dir) return;
  let fd = files.get(kind);
  if (fd === undefined) {
    mkdirSync(join(dir, kind), { recursive: true });
    fd = openSync(join(dir, kind, `${process.pid}.jsonl`), 'a');
    files.set(kind, fd);
  }
  writeSync(fd, `${line}\n`);
}

/** Records a secret the harness or a test knows of (a password given to a driver, say): the scan searches every record for it. */
export function recordSecret(kind: string, value: string): void {
  append('secrets', JSON.stringify({ kind, value } satisfies Secret));
}

/** Records the values of the secret variables (origin/env.ts's SECRET_VARIABLE) a process is given. */
export function recordSecretVariables(env: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(env)) {
    if (value && SECRET_VARIABLE.test(name)) recordSecret(name, value);
  }
}

export interface LogRecord {
  line(text: string): void;
  close(): void;
}

/** Opens a log file in the run's record, named after `source` and the test file under way: call `.line()` per line, then `.close()`. */
export function recordLog(source: string): LogRecord {
  const dir = runDir();
  if (!dir) return { line() {}, close() {} };
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const test = currentTest()?.replace(/^.*\/test\//, '').replace(/[^\w.-]+/g, '_') ?? 'setup';
  let fd: number | undefined = openSync(join(dir, 'logs', `${process.pid}-${++logCount}-${source}-${test}.log`), 'a');
  return {
    line(text) {
      if (fd !== undefined) writeSync(fd, `${text}\n`);
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** Records the secret variables an origin is given, and opens its log file. */
export function recordOrigin(env: Record<string, string | undefined>): LogRecord {
  recordSecretVariables(env);
  return recordLog('origin');
}

/** Records each line of a process's output (stdout and stderr) until both end. */
export function recordOutput(source: string, streams: Readable[]): void {
  const log = recordLog(source);
  let open = streams.length;
  for (const stream of streams) {
    createInterface({ input: stream })
      .on('line', (line) => log.line(line))
      .on('close', () => {
        if (--open === 0) log.close();
      });
  }
}

/** The responses that hand out a secret (keys, rotations, administrator tokens, a new administrator's first token, the examples' keys), also under `/w/<workspace>`. */
const ISSUING = /^(?:\/w\/[^/]+)?\/api\/v1\/(?:api-keys|api-keys\/[^/]+\/rotate|administrators|administrators\/[^/]+\/tokens|examples)$/;
/** Text worth scanning; query results in binary formats are not. */
const TEXT_TYPE = /json|text|xml|csv|html|javascript/;
/** A response larger than this is scanned on its first part only, so the memory tests' large bodies do not fill the worker's memory. */
const MAX_BODY = 2 * 1024 * 1024;

type Fetch = (path: string, init?: RequestInit & { json?: unknown }) => Promise<Response>;

/**
 * Wraps a harness fetch (to an origin, or `via` an edge): records the
 * credentials a request presents and the passwords it saves, and the
 * response's body as the test reads it (a pass-through copy, so a test that
 * stops reading or cancels a stream still does so).
 */
export function recordingFetch(inner: Fetch, via: RecordedResponse['via'] = 'origin'): Fetch {
  return async (path, init = {}) => {
    if (runDir()) recordRequest(path, init);
    const res = await inner(path, init);
    const type = res.headers.get('content-type') ?? '';
    if (!runDir() || !res.body || !TEXT_TYPE.test(type)) return res;
    const method = (init.method ?? 'GET').toUpperCase();
    const pathname = path.split('?')[0]!;
    const test = currentTest();
    const chunks: string[] = [];
    let size = 0;
    const decoder = new TextDecoder();
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (size < MAX_BODY) chunks.push(decoder.decode(chunk, { stream: true }));
        size += chunk.byteLength;
        controller.enqueue(chunk);
      },
      flush() {
        recordResponse({ test, via, method, path: pathname, status: res.status, body: chunks.join('') });
      },
    });
    const tapped = new Response(res.body.pipeThrough(tap), { status: res.status, statusText: res.statusText, headers: res.headers });
    Object.defineProperty(tapped, 'url', { value: res.url });
    return tapped;
  };
}

/**
 * Records a response a test read by other means than `recordingFetch` (a raw
 * `http.request`). A successful POST that issues a secret records the secret
 * and is the one response not searched for it.
 */
export function recordResponse(response: Omit<RecordedResponse, 'issuing' | 'test'> & { test?: string }): void {
  if (!runDir()) return;
  const path = response.path.split('?')[0]!;
  const issuing = response.method === 'POST' && response.status >= 200 && response.status < 300 && ISSUING.test(path);
  if (issuing) {
    for (const match of response.body.matchAll(new RegExp(ISSUED_SECRET, 'g'))) recordSecret(match[0].startsWith('slc_adm_') ? 'issued administrator token' : 'issued key', match[0]);
  }
  const record: RecordedResponse = { test: response.test ?? currentTest(), via: response.via, method: response.method, path, status: response.status, issuing, body: response.body };
  append('responses', JSON.stringify(record));
}

function recordRequest(path: string, init: RequestInit & { json?: unknown }): void {
  const headers = new Headers(init.headers);
  const apiKey = headers.get('x-api-key');
  if (apiKey) recordSecret('presented X-API-Key', apiKey);
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.get('authorization') ?? '')?.[1];
  if (bearer) recordSecret('presented bearer credential', bearer);
  if (!/^(?:\/w\/[^/]+)?\/api\/v1\/connections/.test(path)) return;
  let body = init.json;
  if (body === undefined && typeof init.body === 'string') {
    try {
      body = JSON.parse(init.body);
    } catch {
      return;
    }
  }
  const password = (body as { password?: unknown } | null)?.password;
  // `${VAR}` names a variable and `********` is the mask: neither is a secret.
  if (typeof password === 'string' && !/^\$\{\w+\}$/.test(password) && password !== '********') recordSecret('connection password', password);
}
