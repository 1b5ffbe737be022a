import { describe, expect, test } from 'vitest';
import { resolveValues } from '../../../shared/parameters/index.ts';
import { fails, one, passes, rulesOf, type Source } from './helpers.ts';

/** resolveValues: conversion by type from query-string text and JSON, required and default. */
describe('type int', () => {
  passes([
    ['int', 'query', '42', 42],
    ['int', 'query', '-7', -7],
    ['int', 'query', '+3', 3],
    ['int', 'query', '007', 7],
    ['int', 'query', '-0', 0],
    ['int', 'query', '9007199254740991', 9007199254740991],
    ['int', 'query', '9007199254740992', 9007199254740992n],
    ['int', 'query', '9223372036854775807', 9223372036854775807n],
    ['int', 'query', '-9223372036854775808', -9223372036854775808n],
    ['integer', 'json', 42, 42],
    ['int', 'json', 1.0, 1],
    ['int', 'json', 1234567890123456789n, 1234567890123456789n],
  ]);
  fails([
    ['int', 'query', '1.5', 'must be an integer'],
    ['int', 'query', 'abc', 'must be an integer'],
    ['int', 'query', '', 'must be an integer'],
    ['int', 'query', ' 1', 'must be an integer'],
    ['int', 'query', '1e3', 'must be an integer'],
    ['int', 'json', 1.5, 'must be an integer'],
    ['int', 'json', '42', 'must be an integer'],
    ['int', 'json', true, 'must be an integer'],
    ['int', 'json', Number.NaN, 'must be an integer'],
    // A signed 64-bit integer: past either end no database would bind it.
    ['int', 'query', '9223372036854775808', 'must be an integer from -9223372036854775808 to 9223372036854775807'],
    ['int', 'query', '-99999999999999999999', 'must be an integer from -9223372036854775808 to 9223372036854775807'],
    ['int', 'json', 1e19, 'must be an integer from -9223372036854775808 to 9223372036854775807'],
    ['int', 'json', 1e308, 'must be an integer from -9223372036854775808 to 9223372036854775807'],
    ['int', 'json', 12345678901234567890n, 'must be an integer from -9223372036854775808 to 9223372036854775807'],
  ]);
});

describe('type float', () => {
  passes([
    ['float', 'query', '1.5', 1.5],
    ['float', 'query', '-2e3', -2000],
    ['float', 'query', '.5', 0.5],
    ['float', 'query', '5.', 5],
    ['number', 'query', '5', 5],
    ['float', 'json', 1.5, 1.5],
    ['number', 'json', 2, 2],
    // Whole numbers past 64 bits are doubles, like any other number that size.
    [{ min: 0 }, 'query', '99999999999999999999999', 1e23],
    [{ min: 0 }, 'query', '9223372036854775807', 9223372036854775807n],
    [{ min: 0 }, 'json', 12345678901234567890n, 12345678901234567890],
  ]);
  fails([
    ['float', 'query', 'NaN', 'must be a number'],
    ['float', 'query', 'Infinity', 'must be a number'],
    ['float', 'query', '1e999', 'must be a number'],
    ['float', 'query', '0x10', 'must be a number'],
    ['float', 'query', '1,5', 'must be a number'],
    ['float', 'json', '1.5', 'must be a number'],
    ['float', 'json', Number.POSITIVE_INFINITY, 'must be a number'],
    ['float', 'json', false, 'must be a number'],
  ]);
});

describe('type bool', () => {
  passes([
    ['bool', 'query', 'true', true],
    ['bool', 'query', 'TRUE', true],
    ['bool', 'query', '1', true],
    ['bool', 'query', 'False', false],
    ['boolean', 'query', '0', false],
    ['bool', 'json', true, true],
    ['bool', 'json', false, false],
  ]);
  fails([
    ['bool', 'query', 'yes', 'must be true, false, 1 or 0'],
    ['bool', 'query', '', 'must be true, false, 1 or 0'],
    ['bool', 'json', 'true', 'must be true or false'],
    ['bool', 'json', 1, 'must be true or false'],
  ]);
});

describe('type str', () => {
  passes([
    ['str', 'query', 'hello', 'hello'],
    ['string', 'query', '', ''],
    ['str', 'query', '42', '42'],
    ['str', 'json', 'x', 'x'],
  ]);
  fails([
    ['str', 'json', 5, 'must be a string'],
    ['str', 'json', true, 'must be a string'],
    ['str', 'json', ['a'], 'must be a single value'],
    // No PostgreSQL text can hold a NUL.
    ['str', 'query', 'a\u0000b', 'must not contain a NUL character'],
    ['str', 'json', '\u0000', 'must not contain a NUL character'],
    [{}, 'query', 'a\u0000', 'must not contain a NUL character'],
    [{}, 'json', 'a\u0000', 'must not contain a NUL character'],
    [{ max_length: 3 }, 'json', '\u0000', 'must not contain a NUL character'],
  ]);
});

describe('untyped parameters', () => {
  passes([
    [{}, 'query', 'anything', 'anything'],
    [{}, 'json', 5, 5],
    [{}, 'json', 'x', 'x'],
    [{}, 'json', false, false],
    [{}, 'json', 10n, 10n],
    // bounds make an untyped parameter a number, lengths and patterns make it text
    [{ min: 0 }, 'query', '5', 5],
    [{ max: 10 }, 'query', '2.5', 2.5],
    [{ min: 0 }, 'json', 5, 5],
    [{ max_length: 3 }, 'query', '5', '5'],
    [{ pattern: '\\d+' }, 'json', '5', '5'],
  ]);
  fails([
    [{}, 'json', [1], 'must be a single value'],
    [{}, 'json', { a: 1 }, 'must be a single value'],
    [{}, 'query', ['a', 'b'], 'must be a single value'],
    [{ min: 0 }, 'query', 'abc', 'must be a number'],
    [{ min: 0 }, 'json', '5', 'must be a number'],
    [{ max: 10 }, 'query', '20', 'must be at most 10'],
    [{ max_length: 3 }, 'json', 5, 'must be a string'],
    [{ pattern: '\\d+' }, 'json', 5, 'must be a string'],
  ]);
});

describe('required and default', () => {
  test.each<Source>(['query', 'json'])('a missing required parameter from %s is reported', (source) => {
    expect(one('int', source)).toEqual({ error: 'is required' });
    expect(one({}, source)).toEqual({ error: 'is required' });
    expect(one('int', source, 1)).toEqual({ value: 1 });
  });

  test('null and undefined count as no value', () => {
    expect(one('int', 'json', null)).toEqual({ error: 'is required' });
    expect(resolveValues(rulesOf({ p: 'int' }), { p: undefined }, { source: 'json' })).toEqual({
      errors: { p: 'is required' },
    });
    expect(one({ type: 'int', default: 3 }, 'json', null)).toEqual({ value: 3 });
    expect(one({ required: false }, 'json', null)).toEqual({ value: null });
  });

  test.each<Source>(['query', 'json'])('an optional parameter from %s binds null, or its default', (source) => {
    expect(one({ type: 'int', required: false }, source)).toEqual({ value: null });
    expect(one({ type: 'int', default: 3 }, source)).toEqual({ value: 3 });
    expect(one({ type: 'int', default: 3 }, source, source === 'query' ? '4' : 4)).toEqual({ value: 4 });
  });

  test('a supplied value for an optional parameter is still checked', () => {
    expect(one({ type: 'int', default: 3 }, 'query', 'x')).toEqual({ error: 'must be an integer' });
  });
});
