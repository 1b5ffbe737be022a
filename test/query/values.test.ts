import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../../origin/drivers/types.ts';
import { tempDir } from '../api/connections-fixtures.ts';
import type { Origin } from '../harness/origin.ts';
import { DRIVERS, type TestDb, addConnection, createTestDb, executeSql, rowsOf } from './fixture.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';

/**
 * Values in the JSON format on every database, checked in the raw response
 * text where JSON.parse would round: 64-bit integers and decimals exact,
 * NULL, text as stored, dates ISO, zoned instants in the server's zone
 * (Europe/Paris) with its offset at that instant, zoneless timestamps without one.
 */

const BIG = '9007199254740993'; // 2^53 + 1: a JS number would print ...992
const NEG = '-9007199254740995';
const DECIMAL = '12345678901234567.891'; // 20 digits
const UNICODE = 'héllo – 日本語 🎉 ßΩ';
const QUOTES = 'say "hi",\nit\'s\ta \\ back\\slash';

/** A string literal of `text` in the dialect: quotes doubled; MySQL also escapes backslashes. */
function literal(driver: Dialect, text: string): string {
  const doubled = text.replace(/'/g, "''");
  return `'${driver === 'mysql' ? doubled.replace(/\\/g, '\\\\') : doubled}'`;
}

/** A table of one row per dialect, written through the database's own client. */
function seed(driver: Dialect): string[] {
  const text = (v: string) => literal(driver, v);
  if (driver === 'sqlite') {
    // No exact decimal and no zoned type: decimals and timestamps are stored as text.
    return [
      'CREATE TABLE vals (id integer, big integer, neg integer, amount text, n text, u text, q text, d text, ts text)',
      `INSERT INTO vals VALUES (1, ${BIG}, ${NEG}, '${DECIMAL}', NULL, ${text(UNICODE)}, ${text(QUOTES)}, '2024-02-29', '2024-11-05 12:34:56')`,
    ];
  }
  if (driver === 'clickhouse' || driver === 'jdbc') throw new Error('ClickHouse and JDBC are tested by test/drivers/conformance.test.ts, test/clickhouse/ and test/jdbc/, not here');
  const types = {
    postgres: { amount: 'numeric(20,3)', tz: 'timestamptz', ts: 'timestamp' },
    duckdb: { amount: 'DECIMAL(20,3)', tz: 'TIMESTAMPTZ', ts: 'TIMESTAMP' },
    mysql: { amount: 'DECIMAL(20,3)', tz: 'TIMESTAMP(3) NULL', ts: 'DATETIME' },
  }[driver];
  // MySQL: the session zone is UTC (fixture), so its TIMESTAMP text is a UTC instant.
  const zoned = (utc: string) => (driver === 'mysql' ? `'${utc}'` : `'${utc}+00'`);
  return [
    `CREATE TABLE vals (id integer, big bigint, neg bigint, amount ${types.amount}, n text, u text, q text, d date,
       tz ${types.tz}, tz_summer ${types.tz}, ts ${types.ts})`,
    `INSERT INTO vals VALUES (1, ${BIG}, ${NEG}, ${DECIMAL}, NULL, ${text(UNICODE)}, ${text(QUOTES)}, '2024-02-29',
       ${zoned('2024-11-05 12:34:56.789')}, ${zoned('2024-07-01 12:00:00')}, '2024-11-05 12:34:56')`,
  ];
}

let origin: Origin;
let folder: Awaited<ReturnType<typeof tempDir>>;
const dbs: TestDb[] = [];
const conn = {} as Record<Dialect, string>;

beforeAll(async () => {
  folder = await tempDir();
  await Promise.all(
    DRIVERS.map(async (driver) => {
      const db = await createTestDb(driver, folder.dir);
      dbs.push(db);
      await db.exec(...seed(driver));
    }),
  );
  origin = await sharedOrigin();
  for (const db of dbs) conn[db.driver] = await addConnection(origin, db);
});

afterAll(async () => {
  await origin?.stop();
  await Promise.all(dbs.map((db) => db.drop()));
  await folder?.remove();
});

describe.each(DRIVERS)('%s', (driver) => {
  const select = (columns: string) => executeSql(origin, { sql: `SELECT ${columns} FROM vals`, connection_name: conn[driver] });

  it('writes 64-bit integers past 2^53 as exact literals', async () => {
    const res = await select('big, neg');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.text).toContain(`"big":${BIG}`);
    expect(res.text).toContain(`"neg":${NEG}`);
  });

  it('keeps all 20 digits of a decimal', async () => {
    const res = await select('amount');
    // SQLite has no exact decimal type: the digits come back as the text stored.
    expect(res.text).toContain(driver === 'sqlite' ? `"amount":"${DECIMAL}"` : `"amount":${DECIMAL}`);
  });

  it('writes NULL as null, and text (unicode, quotes, newlines, tabs, backslashes) exactly', async () => {
    const res = await select('n, u, q');
    expect(rowsOf(res)).toEqual([{ n: null, u: UNICODE, q: QUOTES }]);
    expect(res.text).toContain('"n":null');
  });

  if (driver === 'sqlite') {
    it('passes date and timestamp text through as stored, inventing no zone', async () => {
      expect(rowsOf(await select('d, ts'))).toEqual([{ d: '2024-02-29', ts: '2024-11-05 12:34:56' }]);
    });
  } else {
    it('writes dates as YYYY-MM-DD and zoneless timestamps without an offset', async () => {
      expect(rowsOf(await select('d, ts'))).toEqual([{ d: '2024-02-29', ts: '2024-11-05T12:34:56' }]);
    });

    it('writes zoned instants in the server zone (Europe/Paris) with the offset of that instant', async () => {
      expect(rowsOf(await select('tz, tz_summer'))).toEqual([
        { tz: '2024-11-05T13:34:56.789+01:00', tz_summer: '2024-07-01T14:00:00+02:00' },
      ]);
    });
  }
});
