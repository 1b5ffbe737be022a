import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../api/connections-fixtures.ts';
import { type FormatEnv, startFormatEnv } from '../formats/fixture.ts';
import { hyparquetRead } from '../formats/readers.ts';
import { logsCaughtUp, startOrigin } from '../harness/origin.ts';
import { DRIVERS } from '../query/fixture.ts';
import { parseCsv } from '../unit/formats/parsers.ts';
import { STREAM_FORMATS, type StreamFormat, seriesSql, streamWithTrailers, streamed } from './fixture.ts';
import { eventually } from '../harness/eventually.ts';

/**
 * SLUICE_STREAM_MAX_ROWS caps a stream: past the cap the download ends with
 * exactly that many rows and a warning is logged; at or under it nothing is
 * cut or logged. Every stream ends with the trailers `Sluice-Rows` and
 * `Sluice-Complete`, so a cut one never passes for a whole one. A malformed
 * value stops startup, naming the variable.
 */

const CAP = 1000;

let env: FormatEnv;
beforeAll(async () => {
  env = await startFormatEnv({ SLUICE_STREAM_MAX_ROWS: String(CAP), SLUICE_JSON_LOGS: '1' });
});
afterAll(async () => {
  await env?.close();
});

/** The `n` column of a streamed body, as numbers. */
async function ns(format: StreamFormat, bytes: Buffer): Promise<number[]> {
  const text = bytes.toString('utf8');
  switch (format) {
    case 'csv':
      return parseCsv(text).slice(1).map((r) => Number(r[0].value));
    case 'tsv':
      return text.split('\n').slice(1, -1).map((l) => Number(l.split('\t')[0]));
    case 'ndjson':
      return text.split('\n').slice(0, -1).map((l) => JSON.parse(l).n);
    case 'parquet':
      return (await hyparquetRead(bytes)).rows.map((r) => Number(r.n));
  }
}

/** Warning lines that name SLUICE_STREAM_MAX_ROWS. */
const capWarnings = () =>
  env.origin.logs.filter((line) => {
    try {
      const entry = JSON.parse(line);
      return entry.level === 'warn' && /SLUICE_STREAM_MAX_ROWS/.test(String(entry.message));
    } catch {
      return false;
    }
  }).length;

const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe.each(DRIVERS)('%s', (driver) => {
  it.each(STREAM_FORMATS)(`%s: 5000 rows stream as exactly the first ${CAP}, and a warning is logged`, async (format) => {
    const before = capWarnings();
    const bytes = await streamed(env.origin, { sql: seriesSql(driver, 5000), connection_name: env.conn[driver] }, format);
    expect(await ns(format, bytes)).toEqual(upTo(CAP));
    await eventually(async () => capWarnings() === before + 1, { what: 'one cap warning in the log', timeoutMs: 3_000 });
  });

  it(`a result of exactly ${CAP} rows is whole and logs no warning`, async () => {
    const before = capWarnings();
    const bytes = await streamed(env.origin, { sql: seriesSql(driver, CAP), connection_name: env.conn[driver] }, 'csv');
    expect(await ns('csv', bytes)).toEqual(upTo(CAP));
    // A warning is logged as the stream's run ends, before its body does.
    await logsCaughtUp(env.origin);
    expect(capWarnings()).toBe(before);
  });
});

describe.each(DRIVERS)('%s: the trailers of a stream', (driver) => {
  it.each(['ndjson', 'csv'] as const)('%s: cut at the cap, Sluice-Complete false; whole, true; each with the rows sent', async (format) => {
    const cut = await streamWithTrailers(env.origin, { sql: seriesSql(driver, 5000), connection_name: env.conn[driver] }, format);
    expect(cut.declared).toBe('Sluice-Rows, Sluice-Complete');
    expect(await ns(format, cut.bytes)).toEqual(upTo(CAP));
    expect(cut.trailers).toEqual({ 'sluice-rows': String(CAP), 'sluice-complete': 'false' });
    for (const count of [CAP, 7]) {
      const whole = await streamWithTrailers(env.origin, { sql: seriesSql(driver, count), connection_name: env.conn[driver] }, format);
      expect(await ns(format, whole.bytes)).toEqual(upTo(count));
      expect(whole.trailers).toEqual({ 'sluice-rows': String(count), 'sluice-complete': 'true' });
    }
  });
});

describe('a malformed SLUICE_STREAM_MAX_ROWS', () => {
  it.each(['abc', '0', '-5', '1.5'])('stops startup naming the variable: %j', async (value) => {
    const folder = await tempDir();
    try {
      const outcome = await startOrigin({ dataDir: join(folder.dir, 'data'), template: false, env: { SLUICE_STREAM_MAX_ROWS: value } }).then(
        async (origin) => {
          await origin.stop();
          return null;
        },
        (error: Error) => error,
      );
      if (outcome === null) expect.fail(`SLUICE_STREAM_MAX_ROWS=${JSON.stringify(value)}: the origin started`);
      expect(outcome.message).toMatch(/exited with [1-9]\d* before listening/);
      expect(outcome.message).toContain('SLUICE_STREAM_MAX_ROWS');
    } finally {
      await folder.remove();
    }
  });
});
