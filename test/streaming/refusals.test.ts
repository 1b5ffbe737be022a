import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FormatEnv, post, startFormatEnv } from '../formats/fixture.ts';
import { DRIVERS } from '../query/fixture.ts';
import { STREAM_FORMATS, expectErrorBeforeData, startStream } from './fixture.ts';

/**
 * What `stream=true` refuses, on every database and on a server that allows
 * writes: formats that cannot stream and paging (400), any write (403, and it
 * does not run), and the usual JSON errors — unknown connection 404, SQL the
 * database rejects 500 with `detail` — before any data.
 */

const MISSING_TABLE = 'no_such_table_s';

let env: FormatEnv;
beforeAll(async () => {
  env = await startFormatEnv({ SLUICE_ALLOW_WRITES: '1' });
});
afterAll(async () => {
  await env?.close();
});

describe.each(DRIVERS)('%s (SLUICE_ALLOW_WRITES=1)', (driver) => {
  const body = (sql = 'SELECT id FROM vals', extra: Record<string, unknown> = {}) => ({ sql, connection_name: env.conn[driver], ...extra });
  const ids = async () => {
    const res = await post(env.origin, body('SELECT id FROM vals WHERE id IS NOT NULL ORDER BY id'), { format: 'csv' });
    expect(res.status, res.text).toBe(200);
    return res.text;
  };

  it.each(['json', 'xml', 'yaml', 'xlsx'])('answers 400 for stream with %s, in the query string or the body', async (format) => {
    const inQuery = await expectErrorBeforeData(await startStream(env.origin, body(), { format }), 400);
    expect(inQuery.error).toContain(format);
    await expectErrorBeforeData(await startStream(env.origin, body('SELECT id FROM vals', { format })), 400);
  });

  it('answers 400 for page or page_size with stream, in the query string or the body', async () => {
    for (const format of STREAM_FORMATS) {
      await expectErrorBeforeData(await startStream(env.origin, body(), { format, page: 1 }), 400);
      await expectErrorBeforeData(await startStream(env.origin, body(), { format, page_size: 10 }), 400);
      await expectErrorBeforeData(await startStream(env.origin, body('SELECT id FROM vals', { page: 2 }), { format }), 400);
      await expectErrorBeforeData(await startStream(env.origin, body('SELECT id FROM vals', { page_size: 5 }), { format }), 400);
    }
  });

  it('answers 403 for a write with stream although the server allows writes, and the write does not run', async () => {
    const before = await ids();
    for (const sql of ['INSERT INTO vals (id) VALUES (99)', 'DELETE FROM vals', 'UPDATE vals SET id = 7 WHERE id = 1']) {
      for (const format of STREAM_FORMATS) {
        const error = await expectErrorBeforeData(await startStream(env.origin, body(sql), { format }), 403);
        expect(error.error).toMatch(/read-only/i);
      }
    }
    expect(await ids()).toBe(before);
    // The same write without stream runs on this server: the refusal is the stream's.
    const ran = await post(env.origin, body('INSERT INTO vals (id) VALUES (99)'));
    expect(ran.status, ran.text).toBe(200);
    expect(await ids()).not.toBe(before);
    expect((await post(env.origin, body('DELETE FROM vals WHERE id = 99'))).status).toBe(200);
    expect(await ids()).toBe(before);
  });

  it('answers 404 JSON for an unknown connection, before any data', async () => {
    for (const format of STREAM_FORMATS) {
      const error = await expectErrorBeforeData(
        await startStream(env.origin, { sql: 'SELECT 1 AS x', connection_name: 'no_such_connection_s' }, { format }),
        404,
      );
      expect(error.error).toContain('no_such_connection_s');
    }
  });

  it('answers 500 JSON with the database message in detail for SQL it rejects, before any data', async () => {
    for (const format of STREAM_FORMATS) {
      const error = await expectErrorBeforeData(await startStream(env.origin, body(`SELECT * FROM ${MISSING_TABLE}`), { format }), 500);
      expect(typeof error.detail).toBe('string');
      expect(error.detail).toContain(MISSING_TABLE);
    }
    const syntax = await expectErrorBeforeData(await startStream(env.origin, body('SELECT id FROM vals WHERE'), { format: 'csv' }), 500);
    expect(typeof syntax.detail).toBe('string');
  });
});
