import { describe, expect, test } from 'vitest';
import { parseArray } from '../../origin/drivers/pg-types.ts';
import { createRedactor, redact } from '../../origin/drivers/redact.ts';
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
