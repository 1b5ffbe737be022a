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
 * The forms a secret takes when it leaks: as is, URL-encoded (a query
 * string, a connection URL) and JSON-escaped (a string inside a JSON body or
 * log line). Each distinct form, with the kind it is reported as.
 */
export function secretForms(secret: Secret): Secret[] {
  const forms = [
    secret,
    { kind: `${secret.kind} (URL-encoded)`, value: encodeURIComponent(secret.value) },
    { kind: `${secret.kind} (JSON-escaped)`, value: JSON.stringify(secret.value).slice(1, -1) },
  ];
  return forms.filter((form, index) => forms.findIndex((other) => other.value === form.value) === index);
}

/**
 * A scanner for `secrets` (in each of their forms): the findings in `lines`
 * of `file`, and with `issuedPattern` any issued-looking secret even if
 * unknown. Built once, as a full run has thousands of lines and hundreds of
 * secrets.
 */
export function scanner(secrets: Secret[]): (file: string, lines: string[], issuedPattern?: boolean) => Finding[] {
  const forms = searchable(secrets).flatMap(secretForms);
  const kinds = new Map<string, string>();
  for (const form of forms) if (!kinds.has(form.value)) kinds.set(form.value, form.kind);
  const known = [...kinds.keys()].sort((a, b) => b.length - a.length);
  // Longest first, so a secret that starts another does not hide it.
  const any = known.length ? new RegExp(known.map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g') : undefined;
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
  /** Read from an origin directly, or through an edge (workerd) in front of one. Absent in older records: an origin. */
  via?: 'origin' | 'edge';
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
  /** Of `responses`, those read through an edge. */
  edgeResponses: number;
  secrets: number;
  findings: Finding[];
}

/**
 * What a full run records at the least: fewer means the recording broke, and
 * a scan of nothing proves nothing. Measured, a part of a full run
 * (test/q*, test/api and the through-edge project) recorded 4519 log lines,
 * 3187 responses (1275 through an edge) and 54 secrets; the floors sit below
 * that, so only a broken recording falls short. A run of some files only
 * (harness/full-run.ts) is held to no minimum.
 */
export const FULL_RUN_MINIMUMS = { logLines: 3000, responses: 2500, edgeResponses: 800, secrets: 40 } as const satisfies Partial<Record<keyof RunScan, number>>;

/** Each count of `scan` below its minimum, said in words; empty when none is. */
export function shortfalls(scan: RunScan, minimums: Partial<Record<keyof RunScan, number>> = FULL_RUN_MINIMUMS): string[] {
  return Object.entries(minimums)
    .filter(([name, least]) => (scan[name as keyof RunScan] as number) < least!)
    .map(([name, least]) => `${scan[name as keyof RunScan] as number} ${name}, at least ${least} expected`);
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
  let edgeResponses = 0;
  for (const { file, lines } of await readAll(join(dir, 'responses'))) {
    lines.forEach((line, index) => {
      if (!line) return;
      const response = JSON.parse(line) as RecordedResponse;
      responses++;
      if (response.via === 'edge') edgeResponses++;
      if (response.issuing) return;
      for (const finding of scan(file, [scannedBody(response)])) {
        const where = `${response.via === 'edge' ? 'through the edge ' : ''}${response.method} ${response.path} (${response.status})`;
        findings.push({ ...finding, line: index + 1, kind: `${finding.kind} in ${where} of ${response.test ?? 'setup'}` });
      }
    });
  }
  return { logLines, responses, edgeResponses, secrets: known.length, findings };
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
