import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Driver, LineFormat, RunRequest } from '../../origin/drivers/types.ts';
import { serializerFor } from '../../origin/formats/index.ts';
import { renderedLines } from '../../origin/formats/lines.ts';

export const LINE_FORMATS: LineFormat[] = ['csv', 'tsv', 'ndjson'];

export function request(text: string, values: unknown[] = []): RunRequest {
  return { text, values, readOnly: true, timeoutMs: 60_000, signal: new AbortController().signal, batchSize: 2000 };
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

/** The JS path: the driver's values through the format's serializer. */
export async function jsBytes(driver: Driver, text: string, format: LineFormat, values: unknown[] = []): Promise<string> {
  const cursor = await driver.run(request(text, values));
  try {
    return await collect((await serializerFor(format)).serialize(cursor.columns, cursor.batches));
  } finally {
    await cursor.close();
  }
}

/** The push-down path, or null when the driver declines. */
export async function pushedBytes(driver: Driver, text: string, format: LineFormat, values: unknown[] = []): Promise<string | null> {
  const lines = await driver.streamLines!(request(text, values), format);
  if (!lines) return null;
  try {
    return await collect(renderedLines(await serializerFor(format), lines.columns, lines.batches));
  } finally {
    await lines.close();
  }
}

/** The first differing line of two outputs, for a readable failure. */
export function firstDifference(a: string, b: string): string | null {
  if (a === b) return null;
  const x = a.split('\n');
  const y = b.split('\n');
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] !== y[i]) return `line ${i + 1}:\n  js:       ${JSON.stringify(x[i])}\n  pushdown: ${JSON.stringify(y[i])}`;
  }
  return 'lengths differ';
}

/** A new folder holding `fixture.duckdb`, made by `statements`. */
export async function duckFixture(prefix: string, statements: string[]): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const file = join(dir, 'fixture.duckdb');
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  for (const statement of statements) await connection.run(statement);
  connection.closeSync();
  instance.closeSync();
  return { dir, file };
}

export const READ_ONLY_ENV = { poolSize: 4, poolMax: 10, poolIdleTimeoutMs: 60_000, allowWrites: false };
