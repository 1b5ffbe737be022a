import { describe, expect, test } from 'vitest';
import { jdbcEngine } from '../../../origin/sql/engine.ts';
import { inspect } from '../../../origin/sql/index.ts';

/** H2 ignores the read-only flag: a read calls only the functions of its allowlist (origin/sql/h2.ts). Issue 33 item 1. */
describe('H2: allow, do not deny', () => {
  test('built-in pure functions, type names, table functions and CTE column lists are reads', () => {
    for (const sql of [
      'SELECT CAST(9007199254740993 AS BIGINT) AS big, CAST(1.50 AS DECIMAL(10, 2)) AS d',
      `SELECT "X" AS n, 'a' AS tag FROM SYSTEM_RANGE(1, 10)`,
      "SELECT upper(name), coalesce(a, 1), count(*), row_number() OVER (ORDER BY id) FROM t WHERE id IN (1, 2) AND EXISTS (SELECT 1)",
      'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r',
      'WITH a(x) AS (SELECT 1), b(y) AS (SELECT 2) SELECT x, y FROM a, b',
      "SELECT listagg(name, ',') WITHIN GROUP (ORDER BY name) FROM t",
      `SELECT "abs"(-1), EXTRACT(YEAR FROM CURRENT_DATE), TRIM(BOTH ' ' FROM 'a')`,
    ]) {
      expect(inspect(sql, 'h2').refusal, sql).toBeNull();
    }
  });

  test('file, session and unknown functions are refused, however the name is written', () => {
    const cases: Array<[string, string]> = [
      [`select U&"FILE\\005fWRITE"('x','/tmp/f')`, 'FILE_WRITE()'],
      [`select utf8tostring(U&"FILE\\005fREAD"('/etc/hostname'))`, 'FILE_READ()'],
      [`select "file_read"('/etc/hostname')`, 'FILE_READ()'],
      ["SELECT * FROM CSVREAD('/etc/passwd')", 'CSVREAD()'],
      ["CALL CSVWRITE('/tmp/x.csv', 'SELECT 1')", 'CALL'],
      ['select abort_session(3)', 'ABORT_SESSION()'],
      ['select my_alias(1)', 'MY_ALIAS()'],
      ['select PUBLIC.ABS(1)', 'ABS()'],
      ['select `FILE_READ`(\'/etc/hostname\')', 'FILE_READ()'],
      ['select database_path()', 'DATABASE_PATH()'],
      ["select set(@leak, 'A')", 'SET'],
      ['select @leak', 'SET'],
      ['SET @x = 1', 'SET'],
      ['select next value for s', 'NEXTVAL()'],
      ['select s.nextval', 'NEXTVAL()'],
      ['select * from information_schema.sessions', 'INFORMATION_SCHEMA.SESSIONS'],
    ];
    for (const [sql, op] of cases) {
      const info = inspect(sql, 'h2');
      expect(info.isRead, sql).toBe(false);
      expect(info.writeOps, sql).toContain(op);
    }
  });

  test('a name in brackets right before ( cannot be read', () => {
    const info = inspect("select [FILE_READ]('/etc/hostname')", 'h2');
    expect(info.refusal).toMatch(/cannot be read/);
    expect(info.writeOps).toEqual([]);
  });

  test('the engine behind a jdbc connection', () => {
    expect(jdbcEngine('h2', 'jdbc:h2:mem:x', 'org.h2.Driver')).toBe('h2');
    expect(jdbcEngine('jdbc', 'jdbc:h2:mem:x', 'org.h2.Driver')).toBe('h2');
    expect(jdbcEngine('jdbc', 'JDBC:H2:file:/d/db', '')).toBe('h2');
    expect(jdbcEngine('jdbc', 'jdbc:postgresql://127.0.0.1/test', 'org.postgresql.Driver')).toBe('postgres');
    expect(jdbcEngine('jdbc', 'jdbc:mariadb://127.0.0.1/test', 'org.mariadb.jdbc.Driver')).toBe('mysql');
    expect(jdbcEngine('jdbc', 'jdbc:sqlite:/d/x.db', 'org.sqlite.JDBC')).toBe('sqlite');
    expect(jdbcEngine('jdbc', 'jdbc:sqlserver://x', 'com.microsoft.sqlserver.jdbc.SQLServerDriver')).toBe('jdbc');
  });
});
