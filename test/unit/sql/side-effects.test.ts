import { describe, expect, test } from 'vitest';
import { inspect } from '../../../origin/sql/index.ts';

/** Edges of the side-effect check the corpus does not show (origin/sql/side-effects.ts). */
describe('side-effect calls', () => {
  test('set_config with a missing or unclosed third argument is refused', () => {
    expect(inspect("select set_config('a.b', 'c')", 'postgres').isRead).toBe(false);
    expect(inspect("select set_config('a.b', 'c', true", 'postgres').isRead).toBe(true);
    expect(inspect("select set_config('a.b', 'c', false", 'postgres').isRead).toBe(false);
    expect(inspect("select set_config('a.b', f(1, 2), true)", 'postgres').isRead).toBe(true);
    expect(inspect("select set_config('a.b', 'c', (true))", 'postgres').isRead).toBe(false);
  });

  test('names are matched per dialect: another engine’s function is no call here', () => {
    expect(inspect("select get_lock('a', 0)", 'postgres').isRead).toBe(true);
    expect(inspect("select lo_import('/etc/passwd')", 'mysql').isRead).toBe(true);
    expect(inspect("select pg_notify('c', 'x')", 'duckdb').isRead).toBe(true);
  });

  test('a MySQL double-quoted name is a string by default, and a call under ANSI_QUOTES', () => {
    expect(inspect('SELECT "GET_LOCK"(1)', 'mysql').refusal).toMatch(/^GET_LOCK\(\) .* when the server runs with ANSI_QUOTES/);
  });

  test('every refused call is reported once per name', () => {
    const info = inspect('select pg_advisory_lock(1), pg_advisory_lock(2), pg_advisory_unlock_all()', 'postgres');
    expect(info.writeOps).toEqual(['PG_ADVISORY_LOCK()', 'PG_ADVISORY_UNLOCK_ALL()']);
    expect(info.refusal).toBe('PG_ADVISORY_LOCK() takes or releases a lock other sessions wait on');
  });

  // Quadratic work on this input would take minutes; linear takes well under a second.
  test('stays linear on long input', () => {
    const calls = Array.from({ length: 20_000 }, (_, i) => `set_config('a.b', '${i}', true)`).join(', ');
    const started = performance.now();
    expect(inspect(`select ${calls}`, 'postgres').isRead).toBe(true);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

/** Issue 33 items 2 and 14: SQL that runs SQL, and the server-file functions of pg_read_file's class. */
describe('SQL that runs SQL, and server files', () => {
  test.each([
    ["select query_to_xml('select pg_read_file(''/etc/hostname'')', true, false, '')", 'QUERY_TO_XML()'],
    ["select query_to_xml_and_xmlschema('select 1', true, false, '')", 'QUERY_TO_XML_AND_XMLSCHEMA()'],
    ["select query_to_xmlschema('select 1', true, false, '')", 'QUERY_TO_XMLSCHEMA()'],
    ["select cursor_to_xml('c', 1, true, false, '')", 'CURSOR_TO_XML()'],
    ["select cursor_to_xmlschema('c', true, false, '')", 'CURSOR_TO_XMLSCHEMA()'],
    ["select table_to_xml('secret', true, false, '')", 'TABLE_TO_XML()'],
    ["select schema_to_xml('public', true, false, '')", 'SCHEMA_TO_XML()'],
    ["select database_to_xml(true, false, '')", 'DATABASE_TO_XML()'],
    ["select pg_catalog.ts_stat('select to_tsvector(secret) from t')", 'TS_STAT()'],
    ["select * from pg_ls_dir('/')", 'PG_LS_DIR()'],
    ["select pg_stat_file('/etc/hostname')", 'PG_STAT_FILE()'],
    ['select * from pg_ls_logdir()', 'PG_LS_LOGDIR()'],
    ['select * from pg_ls_waldir()', 'PG_LS_WALDIR()'],
    ['select * from pg_ls_tmpdir()', 'PG_LS_TMPDIR()'],
    ['select * from pg_ls_archive_statusdir()', 'PG_LS_ARCHIVE_STATUSDIR()'],
    ["select pg_read_binary_file('/etc/hostname')", 'PG_READ_BINARY_FILE()'],
  ])('postgres: %s', (sql, op) => {
    const info = inspect(sql, 'postgres');
    expect(info.isRead).toBe(false);
    expect(info.writeOps).toEqual([op]);
  });

  test('DuckDB query() and query_table() run SQL or read tables named by values', () => {
    expect(inspect("select * from query('select 1')", 'duckdb').writeOps).toEqual(['QUERY()']);
    expect(inspect("select * from query_table('secret')", 'duckdb').writeOps).toEqual(['QUERY_TABLE()']);
  });
});
