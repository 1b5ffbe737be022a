import { describe, expect, test } from 'vitest';
import { parseArray } from '../../origin/drivers/postgres/types.ts';
import { createRedactor, redact, statementDetail } from '../../origin/drivers/redact.ts';
import {
  dateText,
  instantMicrosFromText,
  localFromMicros,
  localTimestampText,
  timeText,
} from '../../origin/drivers/temporal.ts';

describe('redaction', () => {
  test('strips the password value, URL credentials and password= pairs', () => {
    const r = createRedactor('p@ss:w0rd/x');
    expect(r('failed for p@ss:w0rd/x and p%40ss%3Aw0rd%2Fx')).toBe('failed for ******** and ********');
    expect(redact('connect postgres://alice:hunter2@db:5432/app failed')).toBe('connect postgres://alice:********@db:5432/app failed');
    expect(redact('bad conninfo host=db password=hunter2 user=x')).toBe('bad conninfo host=db password=******** user=x');
    expect(redact("pwd='a b c'; server=x")).toBe('pwd=********; server=x');
    expect(redact("Access denied for user 'root'@'localhost' (using password: YES)")).toBe(
      "Access denied for user 'root'@'localhost' (using password: YES)",
    );
  });
});

describe("a rejected statement's detail", () => {
  const failure = (message: string, fields: Record<string, unknown> = {}) => Object.assign(new Error(message), fields);

  test('masks every quoted value of a data exception or constraint violation, whatever the value', () => {
    expect(statementDetail(failure('invalid input syntax for type integer: "hunter2"', { code: '22P02' }))).toBe('invalid input syntax for type integer: "********"');
    expect(statementDetail(failure("Duplicate entry 'it''s' for key 'PRIMARY'", { code: 'ER_DUP_ENTRY', sqlState: '23000' }))).toBe(
      "Duplicate entry '********' for key '********'",
    );
    // MariaDB quotes the column with backticks: a name, kept.
    expect(statementDetail(failure("Incorrect integer value: 'x' for column `db`.`t`.`n` at row 1", { sqlState: '22007' }))).toBe(
      "Incorrect integer value: '********' for column `db`.`t`.`n` at row 1",
    );
    expect(statementDetail(failure("Conversion Error: Could not convert string 'x' to INT32\n\nLINE 1: select 'x'::int"))).toBe(
      "Conversion Error: Could not convert string '********' to INT32\n\nLINE 1: select '********'::int",
    );
  });

  test('keeps names, and never looks for a password: a guess reads the same right or wrong', () => {
    expect(statementDetail(failure('relation "films" does not exist', { code: '42P01' }))).toBe('relation "films" does not exist');
    expect(statementDetail(failure("Table 'test.films' doesn't exist", { code: 'ER_NO_SUCH_TABLE', sqlState: '42S02' }))).toBe("Table 'test.films' doesn't exist");
    expect(statementDetail(failure('function hunter2(integer) does not exist', { code: '42883' }))).toBe('function hunter2(integer) does not exist');
    expect(statementDetail(failure('Catalog Error: Table with name films does not exist!'))).toBe('Catalog Error: Table with name films does not exist!');
    expect(statementDetail(failure('no such table: films', { code: 'SQLITE_ERROR' }))).toBe('no such table: films');
  });

  test('masks credential-shaped text in any of them', () => {
    expect(statementDetail(failure('could not connect to postgres://u:hunter2@db/x', { code: '08001' }))).toBe('could not connect to postgres://u:********@db/x');
    expect(statementDetail(failure('syntax error at or near "password=hunter2"', { code: '42601' }))).toBe('syntax error at or near "password=********"');
  });
});

describe('timestamps as text', () => {
  test('zoned text to exact epoch microseconds', () => {
    expect(instantMicrosFromText('2024-01-02 03:04:05.123456+05:30')).toBe(1704144845123456n);
    expect(instantMicrosFromText('1969-12-31 23:59:59.999999+00')).toBe(-1n);
    expect(instantMicrosFromText('2024-01-02T03:04:05Z')).toBe(1704164645000000n);
    expect(instantMicrosFromText('2024-01-02 03:04:05')).toBe(1704164645000000n);
    expect(instantMicrosFromText('0001-01-01 00:00:00+00 BC')).toBe(-62167219200000000n);
    expect(instantMicrosFromText('infinity')).toBeNull();
  });

  test('zoneless text, dates and times', () => {
    expect(localTimestampText('2024-01-02 03:04:05.120000')).toBe('2024-01-02T03:04:05.12');
    expect(localTimestampText('2024-01-02 03:04:05.000')).toBe('2024-01-02T03:04:05');
    expect(localTimestampText('-infinity')).toBeNull();
    expect(localFromMicros(-1n)).toBe('1969-12-31T23:59:59.999999');
    expect(localFromMicros(253402300799999999n)).toBe('9999-12-31T23:59:59.999999');
    expect(dateText('0044-03-15 BC')).toBe('-0043-03-15');
    expect(timeText('12:00:00.500+05')).toBe('12:00:00.5+05:00');
    expect(timeText('-838:59:59')).toBe('-838:59:59');
  });
});

describe('postgres array text', () => {
  test('nested, quoted, NULL, bounds prefix', () => {
    const id = (t: string) => t;
    expect(parseArray('{{1,2},{3,NULL}}', Number)).toEqual([[1, 2], [3, null]]);
    expect(parseArray('{"a,b","c\\"d","NULL",NULL,""}', id)).toEqual(['a,b', 'c"d', 'NULL', null, '']);
    expect(parseArray('[0:1]={7,8}', Number)).toEqual([7, 8]);
    expect(parseArray('{}', id)).toEqual([]);
  });
});
