import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The whole-run secret check (issue #7): every log line and every response
 * the harness saw during a test run (recorded by run-record.ts) is searched
 * for every secret the harness knows of. Findings name the file, the line
 * and the kind of secret, never the secret itself.
 */

export interface Secret {
  /** What it is (a variable name, `connection password`, `issued key`…): safe to print. */
  kind: string;
  value: string;
}

export interface Finding {
  file: string;
  /** 1-based line in `file`. */
  line: number;
  kind: string;
}

/** What `generateSecret` (shared/access/secret.ts) makes: a key or administrator token, whoever issued it. */
export const ISSUED_SECRET = /slc_(?:adm_)?[0-9A-Za-z]{32}/;

/**
 * Secrets worth searching for. Short values and plain words (a test's
 * password `postgres`) also turn up legitimately, e.g. in SQL text a test
 * sent and a result echoes, so they would only make noise.
 */
export function searchable(secrets: Secret[]): Secret[] {
  const byValue = new Map<string, Secret>();
  for (const secret of secrets) {
    if (secret.value.length < 8 || /^[A-Za-z]+$/.test(secret.value) || byValue.has(secret.value)) continue;
    byValue.set(secret.value, secret);
  }
  return [...byValue.values()];
}

/**
 * A scanner for `secrets`: the findings in `lines` of `file`, and with
 * `issuedPattern` any issued-looking secret even if unknown. Built once, as a
 * full run has thousands of lines and hundreds of secrets.
 */
export function scanner(secrets: Secret[]): (file: string, lines: string[], issuedPattern?: boolean) => Finding[] {
  const known = searchable(secrets).sort((a, b) => b.value.length - a.value.length);
  const kinds = new Map(known.map((s) => [s.value, s.kind]));
  // Longest first, so a secret that starts another does not hide it.
  const any = known.length ? new RegExp(known.map((s) => s.value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g') : undefined;
  return (file, lines, issuedPattern = false) => {
    const findings: Finding[] = [];
    lines.forEach((text, index) => {
      const found = new Set(any ? Array.from(text.matchAll(any), (m) => m[0]) : []);
      for (const value of found) findings.push({ file, line: index + 1, kind: kinds.get(value)! });
      if (issuedPattern && found.size === 0 && ISSUED_SECRET.test(text)) findings.push({ file, line: index + 1, kind: 'issued-looking secret' });
    });
    return findings;
  };
}

export const scanLines = (file: string, lines: string[], secrets: Secret[], issuedPattern = false): Finding[] => scanner(secrets)(file, lines, issuedPattern);

/** One response as recorded: a line of `responses/*.jsonl`. */
export interface RecordedResponse {
  test?: string;
  method: string;
  path: string;
  status: number;
  /** The response that hands out a new secret: the one place it may be. */
  issuing: boolean;
  body: string;
}

export interface RunScan {
  logLines: number;
  responses: number;
  secrets: number;
  findings: Finding[];
}

/** Scans a run directory: log lines for the secrets and the issued pattern; non-issuing responses for the secrets. */
export async function scanRun(dir: string): Promise<RunScan> {
  const secrets: Secret[] = [];
  for (const text of await readAll(join(dir, 'secrets'))) {
    for (const line of text.lines) if (line) secrets.push(JSON.parse(line) as Secret);
  }
  const known = searchable(secrets);
  const scan = scanner(known);
  const findings: Finding[] = [];
  let logLines = 0;
  for (const { file, lines } of await readAll(join(dir, 'logs'))) {
    logLines += lines.length;
    findings.push(...scan(file, lines, true));
  }
  let responses = 0;
  for (const { file, lines } of await readAll(join(dir, 'responses'))) {
    lines.forEach((line, index) => {
      if (!line) return;
      const response = JSON.parse(line) as RecordedResponse;
      responses++;
      if (response.issuing) return;
      for (const finding of scan(file, [scannedBody(response)])) {
        findings.push({ ...finding, line: index + 1, kind: `${finding.kind} in ${response.method} ${response.path} (${response.status}) of ${response.test ?? 'setup'}` });
      }
    });
  }
  return { logLines, responses, secrets: known.length, findings };
}

/**
 * A connection's own `host` and `database` are echoed back as the test chose
 * them; test/query/errors.test.ts names a path after the password on purpose
 * (to prove a driver message quoting it is redacted), so those two fields are
 * not scanned. The password field and everything else still are.
 */
function scannedBody(response: RecordedResponse): string {
  if (!/^(\/w\/[^/]+)?\/api\/v1\/connections(\/|$)/.test(response.path)) return response.body;
  try {
    return JSON.stringify(JSON.parse(response.body), (key, value) => (key === 'host' || key === 'database' ? undefined : value));
  } catch {
    return response.body;
  }
}

async function readAll(dir: string): Promise<{ file: string; lines: string[] }[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    return [];
  }
  const out = [];
  for (const name of names) {
    const text = await readFile(join(dir, name), 'utf8');
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    out.push({ file: join(dir, name), lines });
  }
  return out;
}
