import { describe, expect, test } from 'vitest';
import { resolveValues } from '../../../shared/parameters/index.ts';
import { fails, one, passes, rulesOf, type Source } from './helpers.ts';

/** resolveValues: enum, bounds, lengths, pattern, from_claim, and the request as a whole. */
describe('enum', () => {
  passes([
    [{ type: 'str', enum: ['a', 'b'] }, 'query', 'a', 'a'],
    [{ type: 'str', enum: ['a', 'b'] }, 'json', 'b', 'b'],
    [{ type: 'int', enum: [1, 2] }, 'query', '02', 2],
    [{ type: 'int', enum: [1, 2] }, 'json', 2, 2],
    [{ type: 'float', enum: [1.5, 2] }, 'query', '2.0', 2],
    [{ type: 'float', enum: [1.5, 2] }, 'query', '15e-1', 1.5],
    [{ type: 'bool', enum: [true] }, 'query', '1', true],
    // untyped: query text names an item by its text; the item itself is bound
    [{ enum: [1, 'x', true] }, 'query', '1', 1],
    [{ enum: [1, 'x', true] }, 'query', '1.0', 1],
    [{ enum: [1, 'x', true] }, 'query', 'x', 'x'],
    [{ enum: [1, 'x', true] }, 'query', 'TRUE', true],
    [{ enum: [1, 'x', true] }, 'json', 1, 1],
    [{ enum: [1, 'x', true] }, 'json', true, true],
  ]);
  fails([
    [{ type: 'str', enum: ['a', 'b'] }, 'query', 'c', 'must be one of: a, b'],
    [{ type: 'str', enum: ['a', 'b'] }, 'query', 'A', 'must be one of: a, b'],
    [{ type: 'int', enum: [1, 2] }, 'query', '3', 'must be one of: 1, 2'],
    [{ type: 'int', enum: [1, 2] }, 'json', 3, 'must be one of: 1, 2'],
    [{ type: 'float', enum: [1.5, 2] }, 'json', 1.25, 'must be one of: 1.5, 2'],
    [{ type: 'bool', enum: [true] }, 'json', false, 'must be one of: true'],
    [{ enum: [1, 'x', true] }, 'query', 'y', 'must be one of: 1, x, true'],
    [{ enum: [1, 'x', true] }, 'json', '1', 'must be one of: 1, x, true'],
    [{ enum: [1, 'x', true] }, 'json', 'true', 'must be one of: 1, x, true'],
  ]);
});

describe('min and max', () => {
  const small = { type: 'int', min: 1, max: 10 };
  passes([
    [small, 'query', '1', 1],
    [small, 'query', '10', 10],
    [small, 'json', 5, 5],
    [{ type: 'float', min: 0.5 }, 'query', '0.5', 0.5],
    [{ type: 'float', max: -1 }, 'json', -1.5, -1.5],
    [{ type: 'int', min: 0 }, 'query', '9000000000000000000', 9000000000000000000n],
  ]);
  fails([
    [small, 'query', '0', 'must be at least 1'],
    [small, 'query', '11', 'must be at most 10'],
    [small, 'json', -3, 'must be at least 1'],
    [small, 'json', 11, 'must be at most 10'],
    [small, 'query', '9000000000000000000', 'must be at most 10'],
    [small, 'json', -9000000000000000000n, 'must be at least 1'],
    [{ type: 'float', min: 0.5 }, 'query', '0.4', 'must be at least 0.5'],
    [{ type: 'float', max: -1 }, 'json', -0.5, 'must be at most -1'],
  ]);
});

describe('min_length and max_length', () => {
  const short = { type: 'str', min_length: 2, max_length: 3 };
  passes([
    [short, 'query', 'ab', 'ab'],
    [short, 'json', 'abc', 'abc'],
    [short, 'query', '😀😀😀', '😀😀😀'], // three code points, six UTF-16 units
    [{ type: 'str', max_length: 0 }, 'query', '', ''],
  ]);
  fails([
    [short, 'query', 'a', 'must be at least 2 characters long'],
    [short, 'json', 'abcd', 'must be at most 3 characters long'],
    [short, 'query', '😀😀😀😀', 'must be at most 3 characters long'],
    [short, 'query', '', 'must be at least 2 characters long'],
  ]);
});

describe('pattern', () => {
  passes([
    [{ type: 'str', pattern: '[a-z]+' }, 'query', 'abc', 'abc'],
    [{ type: 'str', pattern: 'cat|dog' }, 'json', 'dog', 'dog'],
    [{ type: 'str', pattern: '^[A-Z]{2}-\\d{4}$' }, 'query', 'AB-1234', 'AB-1234'],
    [{ type: 'str', pattern: '\\p{Lu}+' }, 'query', 'ÄB', 'ÄB'],
    [{ type: 'str', pattern: '.' }, 'query', '😀', '😀'],
  ]);
  fails([
    [{ type: 'str', pattern: '[a-z]+' }, 'query', 'abc1', 'must match the pattern ^[a-z]+$'],
    [{ type: 'str', pattern: '[a-z]+' }, 'json', '1abc', 'must match the pattern ^[a-z]+$'],
    [{ type: 'str', pattern: 'cat|dog' }, 'json', 'catdog', 'must match the pattern ^(?:cat|dog)$'],
    [{ type: 'str', pattern: 'cat|dog' }, 'query', 'hotdog', 'must match the pattern ^(?:cat|dog)$'],
    [{ type: 'str', pattern: '^[A-Z]{2}-\\d{4}$' }, 'query', 'AB-12345', 'must match the pattern ^[A-Z]{2}-\\d{4}$'],
    // One anchor at each end, never a doubled one (issue 33 item 14: `^(a+)+$$`).
    [{ type: 'str', pattern: '(a+)+$' }, 'query', 'b', 'must match the pattern ^(a+)+$'],
    [{ type: 'str', pattern: '^ab' }, 'query', 'b', 'must match the pattern ^ab$'],
    [{ type: 'str', pattern: 'a\\$' }, 'query', 'b', 'must match the pattern ^a\\$$'],
  ]);

  test('a value breaking several rules gets every problem, joined', () => {
    expect(one({ type: 'str', min_length: 3, pattern: '[a-z]+' }, 'query', 'A')).toEqual({
      error: 'must be at least 3 characters long; must match the pattern ^[a-z]+$',
    });
  });
});

describe('from_claim', () => {
  const claim = { type: 'int', from_claim: 'tenant', max: 100 };

  test('the value comes from the claim, converted as a JSON value', () => {
    expect(one(claim, 'query', undefined, { tenant: 7 })).toEqual({ value: 7 });
    expect(one({ from_claim: 'sub' }, 'json', undefined, { sub: 'user-1' })).toEqual({ value: 'user-1' });
  });

  test.each([
    [undefined, 'requires a sign-in token with claim tenant'],
    [null, 'requires a sign-in token with claim tenant'],
    [{}, 'requires a sign-in token with claim tenant'],
    [{ tenant: null }, 'requires a sign-in token with claim tenant'],
    [{ other: 1 }, 'requires a sign-in token with claim tenant'],
    [{ tenant: '7' }, 'claim tenant must be an integer'],
    [{ tenant: 700 }, 'claim tenant must be at most 100'],
  ])('claims %j are refused', (claims, message) => {
    expect(one(claim, 'query', undefined, claims)).toEqual({ error: message });
  });

  test.each<Source>(['query', 'json'])('a value supplied from %s is refused, even with a claim', (source) => {
    expect(one(claim, source, source === 'query' ? '7' : 7, { tenant: 7 })).toEqual({
      error: 'comes from the sign-in token and cannot be given in the request',
    });
    expect(one(claim, source, '7', null)).toEqual({
      error: 'comes from the sign-in token and cannot be given in the request; requires a sign-in token with claim tenant',
    });
  });

  test('claims named like Object.prototype members are not read from the prototype', () => {
    expect(one({ from_claim: 'constructor' }, 'json', undefined, {})).toEqual({
      error: 'requires a sign-in token with claim constructor',
    });
  });
});

describe('the whole request', () => {
  const rules = rulesOf({
    id: { type: 'int', min: 1 },
    name: { type: 'str', max_length: 3 },
    active: { type: 'bool', default: true },
    note: { type: 'str', required: false },
  });

  test('every problem is listed and nothing partial is returned', () => {
    expect(resolveValues(rules, { id: '0', name: 'long' }, { source: 'query' })).toEqual({
      errors: { id: 'must be at least 1', name: 'must be at most 3 characters long' },
    });
    expect(resolveValues(rules, { id: '5' }, { source: 'query' })).toEqual({
      errors: { name: 'is required' },
    });
  });

  test('unknown supplied names are ignored', () => {
    expect(resolveValues(rules, { id: '5', name: 'abc', extra: 'x', format: 'csv' }, { source: 'query' })).toEqual({
      values: { id: 5, name: 'abc', active: true, note: null },
    });
  });

  test('names like Object.prototype members are read only from the supplied object itself', () => {
    const tricky = rulesOf(JSON.parse('{"constructor": "str", "__proto__": "int", "toString": {"required": false}}'));
    expect(resolveValues(tricky, {}, { source: 'json' })).toEqual({
      errors: { constructor: 'is required', ['__proto__']: 'is required' },
    });
    const supplied = JSON.parse('{"constructor": "a", "__proto__": 5}');
    const resolved = resolveValues(tricky, supplied, { source: 'json' });
    expect(resolved).toEqual({ values: JSON.parse('{"constructor": "a", "__proto__": 5, "toString": null}') });
    expect(Object.getPrototypeOf((resolved as { values: object }).values)).toBe(Object.prototype);
  });

  test('no rules give no values', () => {
    expect(resolveValues({}, { a: 1 }, { source: 'json' })).toEqual({ values: {} });
  });
});
