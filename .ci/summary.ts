// Prints the closing lines of `bash .ci/run` (test/harness/run-summary.ts):
// why a test counted as failed without failing, the counts per project, and
// last the plain "N passed, N failed". Exits 1 when that count is not 0.
// Usage: tsx .ci/summary.ts <summary.json> <vitest exit status> [failed check...]
import { readFileSync } from 'node:fs';
import { type AllowedSkip, type RunRecord, summarize, summaryLines } from '../test/harness/run-summary.ts';

const [file, status, ...otherFailures] = process.argv.slice(2);
const run = JSON.parse(readFileSync(file!, 'utf8')) as RunRecord;
const allowed = JSON.parse(readFileSync(new URL('../test/allowed-skips.json', import.meta.url), 'utf8')) as AllowedSkip[];
const lines = summaryLines(summarize(run, allowed), status !== '0', otherFailures);
for (const line of lines) console.log(line);
process.exitCode = lines.at(-1)!.endsWith(' 0 failed') ? 0 : 1;
