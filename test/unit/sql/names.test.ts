import { describe, expect, test } from 'vitest';
import { readName } from '../../../origin/sql/identifiers.ts';
import { inspect } from '../../../origin/sql/index.ts';

/** Names read as the engine reads them (origin/sql/identifiers.ts), before any check: issue 33 items 1 and 2. */
describe('escaped and quoted names are read before they are checked', () => {
  test('a U& name with \\XXXX escapes is the function it spells (PostgreSQL)', () => {
    const info = inspect(`select U&"pg\\005fread\\005ffile"('/etc/hostname')`, 'postgres');
    expect(info.isRead).toBe(false);
    expect(info.writeOps).toEqual(['PG_READ_FILE()']);
    expect(inspect(`select U&"pg\\005fterminate\\005fbackend"(1)`, 'postgres').writeOps).toEqual(['PG_TERMINATE_BACKEND()']);
  });

  test('UESCAPE and \\+XXXXXX escapes, a comment before UESCAPE, a qualified U& name', () => {
    expect(inspect(`select U&"pg!005fread!005ffile" /* c */ UESCAPE '!' ('/etc/hostname')`, 'postgres').writeOps).toEqual(['PG_READ_FILE()']);
    expect(inspect(`select u&"pg\\+00005fread_file"('/x')`, 'postgres').writeOps).toEqual(['PG_READ_FILE()']);
    expect(inspect(`select U&"pg_catalog".U&"lo\\005fimport"('/x')`, 'postgres').writeOps).toEqual(['LO_IMPORT()']);
  });

  test('H2: U&"FILE\\005fWRITE" is FILE_WRITE', () => {
    expect(inspect(`select U&"FILE\\005fWRITE"('x','/tmp/f')`, 'jdbc').writeOps).toEqual(['FILE_WRITE()']);
  });

  test('a name the guard cannot decode is refused, naming why, with no write to allow', () => {
    for (const sql of [
      `select U&"pg\\00zfread"('x')`,
      `select U&"pg\\005"('x')`,
      `select U&"a" UESCAPE 'ab' (1)`,
      `select U&"a" UESCAPE '+' (1)`,
      `select U&"\\D800"(1)`,
      `select U&'pg_read_file'('x')`,
    ]) {
      const info = inspect(sql, 'postgres');
      expect(info.isRead, sql).toBe(false);
      expect(info.writeOps, sql).toEqual([]);
      expect(info.refusal, sql).toMatch(/cannot be read/);
    }
  });

  test('ClickHouse backslash escapes in quoted names', () => {
    expect(inspect('select * from `fi\\le`(\'/etc/passwd\')', 'clickhouse').writeOps).toEqual(['FILE()']);
    expect(inspect('select * from "fi\\x6ce"(\'/etc/passwd\')', 'clickhouse').writeOps).toEqual(['FILE()']);
  });

  test('plain quoted and U& names that are harmless stay reads', () => {
    expect(inspect(`select U&"d\\0061ta" from t`, 'postgres').isRead).toBe(true);
    expect(inspect(`select U&'\\0041' as a`, 'postgres').isRead).toBe(true);
    expect(inspect(`select "a""b" from t`, 'postgres').isRead).toBe(true);
  });
});

describe('readName', () => {
  const quoted = (text: string) => ({ kind: 'quoted' as const, text, start: 0, end: text.length, word: '' });

  test('surrogate pairs, doubled quotes, the 63-byte cut of PostgreSQL', () => {
    expect(readName(quoted('U&"\\D83D\\DE00"'), 'postgres')).toEqual({ name: '😀' });
    expect(readName(quoted('U&"a""b"'), 'h2')).toEqual({ name: 'a"b' });
    expect(readName(quoted(`"${'x'.repeat(70)}"`), 'postgres')).toEqual({ name: 'x'.repeat(63) });
    expect(readName(quoted(`"${'x'.repeat(70)}"`), 'h2')).toEqual({ name: 'x'.repeat(70) });
    expect(readName(quoted('U&"\\\\"'), 'postgres')).toEqual({ name: '\\' });
  });

  test('unquoted names fold as each engine folds them', () => {
    const word = (text: string) => ({ kind: 'word' as const, text, start: 0, end: text.length, word: text.toUpperCase() });
    expect(readName(word('PG_Read_File'), 'postgres')).toEqual({ name: 'pg_read_file' });
    expect(readName(word('file_read'), 'h2')).toEqual({ name: 'FILE_READ' });
    expect(readName(word('Load_File'), 'mysql')).toEqual({ name: 'Load_File' });
  });

  // Quadratic work on this input would take minutes; linear takes well under a second.
  test('stays linear on many escaped names', () => {
    const names = Array.from({ length: 20_000 }, (_, i) => `U&"c\\0061l${i}" /* x */`).join(', ');
    const started = performance.now();
    expect(inspect(`select ${names} from t`, 'postgres').isRead).toBe(true);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
