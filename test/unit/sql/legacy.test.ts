import { describe, expect, test } from 'vitest';
import type { Dialect } from '../../../origin/drivers/types.ts';
import { SluiceError } from '../../../origin/errors.ts';
import { substituteLegacy } from '../../../origin/sql/index.ts';

const pg = (sql: string, values: Record<string, unknown>, enumNames?: Set<string>) => substituteLegacy(sql, 'postgres', values, enumNames);

/** The `errors` map a refused substitution throws (400 invalid_request); fails the test when nothing is thrown. */
function refusal(run: () => unknown): Record<string, string> {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SluiceError);
    expect((error as SluiceError).code).toBe('invalid_request');
    expect((error as SluiceError).message).toBe('Invalid parameters');
    return (error as SluiceError).extras.errors as Record<string, string>;
  }
  throw new Error('expected a refusal');
}

describe('substituteLegacy', () => {
  test('replaces {name} for names present, anywhere in the text', () => {
    expect(pg("select * from t where a = {n} and b = '{word}'", { n: 3, word: 'hi' })).toBe("select * from t where a = 3 and b = 'hi'");
  });

  test('leaves names absent from values alone, and repeats present ones', () => {
    expect(pg('select {a}, {b}, {a}', { a: 1 })).toBe('select 1, {b}, 1');
    expect(pg('select {toString}', {})).toBe('select {toString}');
  });

  test('outside quotes: numbers (integer or decimal, signed, as values or text) and booleans', () => {
    expect(pg('{a} {b} {c} {d} {e} {f} {g}', { a: -2.5, b: true, c: false, d: '42', e: '-0.5', f: '+.5', g: 'TRUE' })).toBe(
      '-2.5 true false 42 -0.5 +.5 true',
    );
  });

  test('inside a string literal: text of the spec’s characters', () => {
    expect(pg("select '{d}', 'x{e}y', '{n}'", { d: 'a.b, c:d @e %f +g /h -i', e: '', n: -1 })).toBe(
      "select 'a.b, c:d @e %f +g /h -i', 'xy', '-1'",
    );
    // `--` inside a string is text, not a comment.
    expect(pg("select '{d}'", { d: 'a--b' })).toBe("select 'a--b'");
    expect(pg('select $${d}$$, E\'{d}\'', { d: 'one two' })).toBe("select $$one two$$, E'one two'");
  });

  test.each([
    ['the UNION of the review', '0 UNION SELECT 1,s FROM secrets'],
    ['a keyword', 'secrets'],
    ['words and spaces', 'id OR 1'],
    ['a number followed by text', '1 OR 1'],
    ['an exponent', '1e5'],
    ['a hexadecimal number', '0x10'],
    ['empty text', ''],
  ])('outside quotes, refuses %s', (_, value) => {
    expect(refusal(() => pg('select * from t where id > {n}', { n: value }))).toEqual({
      n: 'is pasted into the SQL outside quotes: must be a number or a boolean',
    });
  });

  test('a quoted identifier or a comment is outside a string: only numbers and booleans', () => {
    expect(refusal(() => pg('select "{c}" from t', { c: 'secret' }))).toHaveProperty('c');
    expect(refusal(() => pg('select 1 -- {c}', { c: 'x\nunion select s from secrets' }))).toHaveProperty('c');
    expect(refusal(() => pg('select 1 /* {c} */', { c: 'x' }))).toHaveProperty('c');
    expect(pg('select "{c}" from t -- {c}', { c: 2 })).toBe('select "2" from t -- 2');
  });

  test.each([
    ['a quote', "x' or '1'='1"],
    ['a double quote', 'x" or 1'],
    ['a semicolon', '1; drop table t'],
    ['a backslash', 'a\\'],
    ['a dollar', '$$ or 1 $$'],
    ['a star', '1*2'],
    ['parentheses', 'f(1)'],
    ['a hash', '1 # rest'],
    ['non-ASCII letters', 'caf\u00e9'],
    ['null', null],
    ['undefined', undefined],
    ['an object', { a: 1 }],
    ['an array', [1]],
    ['a bigint', 1n],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
  ])('inside quotes, refuses %s', (_, value) => {
    expect(refusal(() => pg("select '{p}'", { p: value }))).toEqual({
      p: expect.stringMatching(/^is pasted inside a quoted string: must be a number, a boolean, or text of letters/),
    });
  });

  test('a declared enum’s items may be pasted outside quotes, when made of the spec’s characters', () => {
    expect(pg('select id, {column} from films', { column: 'title' }, new Set(['column']))).toBe('select id, title from films');
    expect(refusal(() => pg('select {column}', { column: 'title' }))).toHaveProperty('column');
    expect(refusal(() => pg('select {column}', { column: 'a; b' }, new Set(['column'])))).toHaveProperty('column');
  });

  test('refuses text that would open a comment next to its neighbours', () => {
    expect(refusal(() => pg('select a -{x}', { x: '-1' }))).toHaveProperty('x');
    expect(refusal(() => pg('select a -{x}', { x: -1 }))).toHaveProperty('x');
    expect(refusal(() => pg('select {x}- 1', { x: 'a-' }, new Set(['x'])))).toHaveProperty('x');
    expect(refusal(() => pg('select {x}* 1', { x: '3/' }, new Set(['x'])))).toHaveProperty('x');
    expect(refusal(() => pg('select {x}{y}', { x: 'a-', y: -2 }, new Set(['x'])))).toHaveProperty('x');
    expect(pg('select {x}{y}', { x: 5, y: -2 })).toBe('select 5-2');
    expect(pg('select a - {x}', { x: -1 })).toBe('select a - -1');
  });

  test('lists every refused placeholder at once', () => {
    expect(Object.keys(refusal(() => pg("select {a}, '{b}', {c}", { a: 'x', b: "'", c: 1 })))).toEqual(['a', 'b']);
  });

  test.each<[Dialect, string]>([
    ['mysql', "select '{p}'"],
    ['mysql', "select 'a\\'{p}'"],
    ['mysql', 'select "{p}"'],
    ['sqlite', 'select "{p}"'],
  ])('%s: %s is inside a string only if every way the server may read quotes says so', (dialect, sql) => {
    const run = () => substituteLegacy(sql, dialect, { p: 'a b' });
    if (sql === "select '{p}'") expect(run()).toBe("select 'a b'");
    else expect(refusal(run)).toHaveProperty('p');
  });
});
