import { describe, expect, test } from 'vitest';
import { SluiceError } from '../../../origin/errors.ts';
import { substituteLegacy } from '../../../origin/sql/index.ts';

describe('substituteLegacy', () => {
  test('replaces {name} for names present, anywhere in the text', () => {
    expect(substituteLegacy("select * from {table} where a = {n} and b = '{word}'", { table: 'sales', n: 3, word: 'hi' })).toBe(
      "select * from sales where a = 3 and b = 'hi'",
    );
  });

  test('leaves names absent from values alone, and repeats present ones', () => {
    expect(substituteLegacy('select {a}, {b}, {a}', { a: 1 })).toBe('select 1, {b}, 1');
    expect(substituteLegacy('select {toString}', {})).toBe('select {toString}');
  });

  test('numbers, booleans and plain text', () => {
    expect(substituteLegacy('{a} {b} {c} {d}', { a: -2.5, b: true, c: false, d: 'a.b, c:d @e %f +g /h -i' })).toBe(
      '-2.5 true false a.b, c:d @e %f +g /h -i',
    );
    expect(substituteLegacy('x{e}y', { e: '' })).toBe('xy');
  });

  test.each([
    ["a quote", "x' or '1'='1"],
    ['a double quote', 'x" or 1'],
    ['a semicolon', '1; drop table t'],
    ['a backslash', 'a\\'],
    ['a star', '1*2'],
    ['parentheses', 'f(1)'],
    ['a comment', '1 -- rest'],
    ['a hash', '1 # rest'],
    ['non-ASCII letters', 'caf\u00e9'],
    ['null', null],
    ['undefined', undefined],
    ['an object', { a: 1 }],
    ['an array', [1]],
    ['a bigint', 1n],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
  ])('refuses %s, naming the parameter', (_, value) => {
    expect(() => substituteLegacy('select {p}', { p: value })).toThrow(SluiceError);
    expect(() => substituteLegacy('select {p}', { p: value })).toThrow(/\{p\}/);
  });

  test('refuses text that would open a comment next to its neighbours', () => {
    expect(() => substituteLegacy('select a -{x}', { x: '-1' })).toThrow(SluiceError);
    expect(() => substituteLegacy('select a -{x}', { x: -1 })).toThrow(SluiceError);
    expect(() => substituteLegacy('select {x}- 1', { x: 'a-' })).toThrow(SluiceError);
    expect(() => substituteLegacy('select {x}* 1', { x: '3/' })).toThrow(SluiceError);
    expect(() => substituteLegacy('select {x}{y}', { x: '1-', y: '-2' })).toThrow(SluiceError);
    expect(substituteLegacy('select a - {x}', { x: -1 })).toBe('select a - -1');
  });

  test('the error is an invalid_request', () => {
    try {
      substituteLegacy('{p}', { p: "'" });
    } catch (error) {
      expect((error as SluiceError).code).toBe('invalid_request');
      return;
    }
    throw new Error('expected a throw');
  });
});
