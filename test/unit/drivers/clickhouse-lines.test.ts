import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ClickhouseLines } from '../../../origin/drivers/clickhouse/lines.ts';
import type { StatementHost } from '../../../origin/drivers/clickhouse/request.ts';
import { request } from '../../streaming-pushdown/pushdown.ts';

/**
 * The RawBLOB reader of the ClickHouse push-down against a scripted response:
 * a server from 25.11 on appends a mid-stream exception after a marker with
 * the response's own tag; none of it may reach the client, and it fails the
 * stream. Without the tag header, bytes pass as they are.
 */

const TAG = 'k3v9x2';
const EXCEPTION = `\r\n__exception__\r\n${TAG}\nCode: 159. DB::Exception: Timeout exceeded\n48 ${TAG}\r\n__exception__\r\n`;

function host(chunks: string[], tag: string | null, killed: string[] = []): StatementHost {
  return {
    client: {
      exec: async () => ({
        stream: Readable.from(chunks.map((c) => Buffer.from(c))),
        query_id: 'q',
        response_headers: tag ? { 'x-clickhouse-exception-tag': tag } : {},
      }),
    } as unknown as StatementHost['client'],
    extraSettings: {},
    killQuery: async (id) => void killed.push(id),
    release: async () => {},
  };
}

async function read(source: ClickhouseLines): Promise<{ text: string; error: Error | null }> {
  await source.start();
  const parts: Uint8Array[] = [];
  try {
    for (let chunk = await source.pull(); chunk; chunk = await source.pull()) parts.push(chunk);
    return { text: Buffer.concat(parts).toString(), error: null };
  } catch (error) {
    return { text: Buffer.concat(parts).toString(), error: error as Error };
  } finally {
    await source.finish('done', false);
  }
}

describe('ClickHouse RawBLOB lines', () => {
  it('pass through whole, split anywhere, with or without a tag', async () => {
    const lines = ['1,a\r\n2,"__exception__"\r\n', '3,', 'c\r\n'];
    for (const tag of [TAG, null]) {
      const got = await read(new ClickhouseLines(host(lines, tag), { id: 1 }, request('SELECT 1'), 'csv', true));
      expect(got).toEqual({ text: lines.join(''), error: null });
    }
  });

  it('a tagged exception fails the stream and none of its bytes pass, even split across chunks', async () => {
    const body = `1,a\r\n2,b\r\n${EXCEPTION}`;
    for (let cut = 1; cut < body.length; cut += 7) {
      const got = await read(new ClickhouseLines(host([body.slice(0, cut), body.slice(cut)], TAG), { id: 1 }, request('SELECT 1'), 'csv', true));
      expect(got.error?.message).toBe('Code: 159. DB::Exception: Timeout exceeded');
      expect(got.text).not.toContain('__exception__');
      expect('1,a\r\n2,b\r\n'.startsWith(got.text)).toBe(true);
    }
  });

  it('a stream closed before its end is killed by its query id', async () => {
    const killed: string[] = [];
    const source = new ClickhouseLines(host(['x\n'.repeat(100_000)], null, killed), { id: 1 }, request('SELECT 1'), 'tsv', true);
    await source.start();
    expect(await source.pull()).not.toBeNull();
    await source.finish('early', false);
    expect(killed).toHaveLength(1);
  });
});
