import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ColumnMeta } from '../../../origin/drivers/types.ts';
import { parquetSerializer, MISFIT_METADATA_KEY } from '../../../origin/formats/parquet.ts';
import { Decimal, Instant, SqlDate, type Value } from '../../../origin/values.ts';
import { duckQuery, duckTypes } from './duck.ts';
import { BIG, COLUMNS, DEC, DOC_JSON, INSTANT_MICROS, NAMES, ROWS, TRICKY, UNICODE, batches, collect, render } from './fixture.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-parquet-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function toFile(name: string, bytes: Buffer): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

const ab = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

describe('parquet', () => {
  it('types columns from kinds and values, as DuckDB reads them', async () => {
    const path = await toFile('fixture.parquet', await render('parquet'));
    expect(await duckTypes(path)).toEqual({
      id: 'BIGINT', big: 'BIGINT', dec: 'DECIMAL(38,5)', flt: 'DOUBLE', flag: 'BOOLEAN', day: 'DATE', clock: 'TIME',
      local: 'TIMESTAMP', at: 'TIMESTAMP WITH TIME ZONE', txt: 'VARCHAR', doc: 'VARCHAR', bin: 'VARCHAR', id_2: 'VARCHAR',
      '1 bad<name>&': 'BIGINT', u_dec: 'DECIMAL(38,3)', u_mix: 'VARCHAR',
    });
    const { rows } = await duckQuery(`SELECT id, big::VARCHAR, dec::VARCHAR, flt, flag, day::VARCHAR, clock::VARCHAR,
      local::VARCHAR, epoch_us("at")::VARCHAR, txt, doc, bin, id_2, "1 bad<name>&"::VARCHAR, u_dec::VARCHAR, u_mix
      FROM read_parquet('${path}') ORDER BY id`);
    expect(rows).toEqual([
      ['1', BIG.toString(), DEC, 1.5, true, '2024-02-29', '13:45:30.123456', '2024-03-10 02:30:00.123456',
        INSTANT_MICROS.toString(), UNICODE, DOC_JSON, 'AAEC+v8=', 'dup', '42', '1.500', 'x'],
      ['2', '-9223372036854775808', '-0.50000', -0.25, false, '1969-12-31', '00:00:00', '1900-01-01 00:00:00',
        '-1', TRICKY, '[]', '', '', '-7', '3.000', '5'],
      ['3', null, null, null, null, null, null, null, null, null, null, null, null, null, null, null],
      ['4', '0', '0.00000', 'NaN', false, '0001-01-01', '23:59:59.999999', '9999-12-31 23:59:59.999999',
        '0', 'true', '"s"', 'PQ==', '007', '0', '-12.345', 'true'],
    ]);
  });

  it('reads back with hyparquet: schema, logical types and values', async () => {
    const bytes = await render('parquet');
    const file = ab(bytes);
    const metadata = parquetMetadata(file);
    expect(metadata.num_rows).toBe(4n);
    const byName = Object.fromEntries(metadata.schema.slice(1).map((e) => [e.name, e]));
    expect(Object.keys(byName)).toEqual(NAMES);
    expect(byName.at.logical_type).toEqual({ type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' });
    expect(byName.local.logical_type).toEqual({ type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MICROS' });
    expect(byName.clock.logical_type).toEqual({ type: 'TIME', isAdjustedToUTC: false, unit: 'MICROS' });
    expect(byName.dec).toMatchObject({ converted_type: 'DECIMAL', precision: 38, scale: 5, type: 'FIXED_LEN_BYTE_ARRAY' });
    expect(metadata.key_value_metadata ?? []).toEqual([]);
    const rows = await parquetReadObjects({
      file,
      parsers: {
        timestampFromMicroseconds: (v: bigint) => v, timestampFromMilliseconds: (v: bigint) => v,
        timestampFromNanoseconds: (v: bigint) => v, dateFromDays: (d: number) => d,
        stringFromBytes: (b: Uint8Array) => new TextDecoder().decode(b), jsonFromBytes: (b: Uint8Array) => b,
        geometryFromBytes: (b: Uint8Array) => b, geographyFromBytes: (b: Uint8Array) => b, uuidFromBytes: (b: Uint8Array) => b,
      },
    });
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatchObject({ id: 1n, big: BIG, flt: 1.5, flag: true, day: 19782, clock: 49530123456n,
      local: 1710037800123456n, at: INSTANT_MICROS, txt: UNICODE, doc: DOC_JSON, id_2: 'dup', '1 bad<name>&': 42n, u_mix: 'x' });
    expect(rows[0].dec).toBeCloseTo(12345678901234567890.12345);
    expect(rows[1]).toMatchObject({ big: -9223372036854775808n, day: -1, local: -2208988800000000n, at: -1n, txt: TRICKY, id_2: '' });
    expect(Object.entries(rows[2]).filter(([k, v]) => k !== 'id' && v !== null)).toEqual([]);
    expect(rows[3].flt).toBeNaN();
  });

  it('writes bounded row groups; later values that do not fit become NULL and are counted', async () => {
    const columns: ColumnMeta[] = [
      { name: 'n', dbType: '?', kind: 'unknown' },
      { name: 'd', dbType: 'numeric', kind: 'decimal' },
      { name: 'day', dbType: 'date', kind: 'date' },
      { name: 'huge', dbType: 'numeric(38,0)', kind: 'integer' },
    ];
    const rows: Value[][] = [];
    for (let i = 0; i < 25; i++) rows.push([i, new Decimal(`${i}.5`), new SqlDate('2024-01-01'), 10n ** 20n + BigInt(i)]);
    rows.push([1.25, new Decimal('1.125'), new SqlDate('infinity'), 7]);
    const bytes = await collect(parquetSerializer({ rowGroupRows: 10 }).serialize(columns, batches(rows, 3)));
    const metadata = parquetMetadata(ab(bytes));
    expect(metadata.row_groups.map((g) => g.num_rows)).toEqual([10n, 10n, 6n]);
    expect(metadata.key_value_metadata).toEqual([{ key: MISFIT_METADATA_KEY, value: JSON.stringify({ n: 1, d: 1, day: 1 }) }]);
    const path = await toFile('groups.parquet', bytes);
    expect(await duckTypes(path)).toEqual({ n: 'BIGINT', d: 'DECIMAL(38,1)', day: 'DATE', huge: 'DECIMAL(38,0)' });
    const { rows: back } = await duckQuery(`SELECT n, d::VARCHAR, day::VARCHAR, huge::VARCHAR FROM read_parquet('${path}')`);
    expect(back).toHaveLength(26);
    expect(back[24]).toEqual(['24', '24.5', '2024-01-01', '100000000000000000024']);
    expect(back[25]).toEqual([null, null, null, '7']);
  });

  it('falls back to text when the first row group does not fit the kind, and for mixed unknowns', async () => {
    const columns: ColumnMeta[] = [
      { name: 'i', dbType: 'int', kind: 'integer' },
      { name: 'mix', dbType: '?', kind: 'unknown' },
      { name: 'empty', dbType: '?', kind: 'unknown' },
      { name: 'ts', dbType: 'timestamptz', kind: 'unknown' },
      { name: 'num', dbType: '?', kind: 'unknown' },
    ];
    const rows: Value[][] = [
      ['12', 1, null, new Instant(5n), 1],
      [3, new SqlDate('2024-01-01'), null, new Instant(-5n), 2.5],
    ];
    const path = await toFile('fallback.parquet', await collect(parquetSerializer().serialize(columns, batches(rows))));
    expect(await duckTypes(path)).toEqual({ i: 'VARCHAR', mix: 'VARCHAR', empty: 'VARCHAR', ts: 'TIMESTAMP WITH TIME ZONE', num: 'DOUBLE' });
    const { rows: back } = await duckQuery(`SELECT i, mix, empty, epoch_us(ts), num FROM read_parquet('${path}')`);
    expect(back).toEqual([['12', '1', null, '5', 1], ['3', '2024-01-01', null, '-5', 2.5]]);
  });

  it('writes a valid file for no rows, typed from the kinds', async () => {
    const path = await toFile('empty.parquet', await render('parquet', COLUMNS, []));
    const types = await duckTypes(path);
    expect(types).toMatchObject({ id: 'BIGINT', flag: 'BOOLEAN', at: 'TIMESTAMP WITH TIME ZONE', u_dec: 'VARCHAR' });
    expect((await duckQuery(`SELECT count(*)::INTEGER FROM read_parquet('${path}')`)).rows).toEqual([[0]]);
  });

  it('deletes its temporary file when done, cancelled, or when the source fails', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'sluice-parquet-tmp-'));
    const serializer = parquetSerializer({ tmpDir: tmp });
    await collect(serializer.serialize(COLUMNS, batches(ROWS)));
    expect(readdirSync(tmp)).toEqual([]);

    const many = Array.from({ length: 50_000 }, (_, i) => [i, `row ${i} ${'x'.repeat(40)}`] as Value[]);
    const two: ColumnMeta[] = [{ name: 'a', dbType: 'int', kind: 'integer' }, { name: 'b', dbType: 'text', kind: 'text' }];
    const iterator = serializer.serialize(two, batches(many, 1000))[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    expect(readdirSync(tmp)).toHaveLength(1);
    await iterator.return?.();
    expect(readdirSync(tmp)).toEqual([]);

    async function* failing(): AsyncIterable<Value[][]> {
      yield [[1, 'a']];
      throw new Error('connection lost');
    }
    await expect(collect(serializer.serialize(two, failing()))).rejects.toThrow('connection lost');
    expect(readdirSync(tmp)).toEqual([]);
    await rm(tmp, { recursive: true });
    expect(existsSync(tmp)).toBe(false);
  });
});
