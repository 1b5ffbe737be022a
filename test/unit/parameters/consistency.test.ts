import { describe, expect, test } from 'vitest';
import { parseDefinitions } from '../../../shared/parameters/index.ts';
import { problemOf, rulesOf } from './helpers.ts';

/** parseDefinitions: how the fields of a rule fit together, defaults and enum items, every problem listed. */
describe('how rules fit together', () => {
  test('required defaults to true, or false when a default is given', () => {
    const rules = rulesOf({ a: { type: 'int' }, b: { type: 'int', default: 3 }, c: { type: 'int', required: false } });
    expect(rules.a.required).toBe(true);
    expect(rules.b.required).toBe(false);
    expect(rules.c.required).toBe(false);
    expect(rulesOf({ p: { type: 'int', required: false, default: 3 } }).p.required).toBe(false);
  });

  test.each([
    [{ type: 'int', required: true, default: 3 }, 'required cannot be true when a default is given'],
    [{ type: 'str', min: 1 }, 'min applies only to numbers (type int or float)'],
    [{ type: 'bool', max: 1 }, 'max applies only to numbers (type int or float)'],
    [{ type: 'int', min_length: 1 }, 'min_length applies only to text (type str)'],
    [{ type: 'float', max_length: 1 }, 'max_length applies only to text (type str)'],
    [{ type: 'bool', pattern: 'true' }, 'pattern applies only to text (type str)'],
    [{ min: 1, pattern: '\\d+' }, 'cannot be combined; give the parameter a type'],
    [{ type: 'int', min: 5, max: 4 }, 'min must not be greater than max'],
    [{ type: 'int', min: 1.2, max: 1.8 }, 'min and max leave no integer between them'],
    [{ type: 'str', min_length: 3, max_length: 2 }, 'min_length must not be greater than max_length'],
    [{ type: 'int', from_claim: 'sub', default: 1 }, 'a from_claim parameter cannot have a default'],
    [{ type: 'int', from_claim: 'sub', required: false }, 'a from_claim parameter is always required'],
  ])('%j is refused: %s', (definition, message) => {
    expect(problemOf(definition)).toContain(message);
  });

  test('the passing counterparts are accepted', () => {
    rulesOf({
      a: { type: 'int', required: false, default: 3 },
      b: { type: 'float', min: 1 },
      c: { min: 1, max: 2 },
      d: { min_length: 1, pattern: '\\d+' },
      e: { type: 'int', min: 4, max: 4 },
      f: { type: 'float', min: 1.2, max: 1.8 },
      g: { type: 'str', min_length: 2, max_length: 2 },
      h: { type: 'int', from_claim: 'sub', required: true },
    });
  });

  test.each([
    [{ type: 'int', default: '3' }, 'default must be an integer'],
    [{ type: 'int', default: 1.5 }, 'default must be an integer'],
    [{ type: 'float', default: '1.5' }, 'default must be a number'],
    [{ type: 'bool', default: 'true' }, 'default must be true or false'],
    [{ type: 'str', default: 5 }, 'default must be a string'],
    [{ default: { a: 1 } }, 'default must be a single value'],
    [{ default: [1] }, 'default must be a single value'],
    [{ min: 1, default: '5' }, 'default must be a number'],
    [{ enum: ['a', 'b'], default: 'c' }, 'default must be one of: a, b'],
    [{ type: 'int', max: 10, default: 11 }, 'default must be at most 10'],
    [{ type: 'float', min: 0.5, default: 0.25 }, 'default must be at least 0.5'],
    [{ type: 'str', max_length: 2, default: 'abc' }, 'default must be at most 2 characters long'],
    [{ type: 'str', min_length: 4, default: 'abc' }, 'default must be at least 4 characters long'],
    [{ type: 'str', pattern: '[a-z]+', default: 'ab1' }, 'default must match the pattern ^[a-z]+$'],
  ])('a default must satisfy the other rules: %j', (definition, message) => {
    expect(problemOf(definition)).toBe(message);
  });

  test('defaults that satisfy the rules are accepted', () => {
    const rules = rulesOf({
      a: { type: 'int', default: 3, max: 10 },
      b: { type: 'float', min: 0.5, default: 0.5 },
      c: { type: 'bool', default: false },
      d: { type: 'str', pattern: '[a-z]+', default: 'ab', max_length: 2 },
      e: { enum: ['a', 'b'], default: 'b' },
      f: { default: 7 },
      g: { type: 'int', default: 2.0 },
    });
    expect(rules.a.default).toBe(3);
    expect(rules.c.default).toBe(false);
    expect(rules.g.default).toBe(2);
  });

  test.each([
    [{ type: 'int', enum: [1, '2'] }, 'enum value "2" must be an integer'],
    [{ type: 'int', enum: [1, 1.5] }, 'enum value 1.5 must be an integer'],
    [{ type: 'bool', enum: [true, 'false'] }, 'enum value "false" must be true or false'],
    [{ type: 'int', max: 10, enum: [5, 20] }, 'enum value 20 must be at most 10'],
    [{ type: 'str', pattern: '[a-z]+', enum: ['ok', 'NO'] }, 'enum value "NO" must match the pattern ^[a-z]+$'],
    [{ min: 0, enum: [1, 'x'] }, 'enum value "x" must be a number'],
  ])('enum items must satisfy the type and the other rules: %j', (definition, message) => {
    expect(problemOf(definition)).toBe(message);
  });

  test('every problem is listed, for every parameter', () => {
    const parsed = parseDefinitions({
      ok: 'int',
      page: 'int',
      'bad-name': 'nope',
      many: { type: 'int', min: 5, max: 1, min_length: 2, bogus: true, default: 'x' },
    });
    expect(parsed).toEqual({
      errors: {
        page: "is reserved for the request's own option",
        'bad-name': expect.stringMatching(/is not a valid parameter name.*; unknown type "nope"/),
        many: [
          'unknown rule "bogus"; known rules are type, required, default, enum, min, max, min_length, max_length, pattern, description, from_claim, values_query, values_field, values_ttl',
          'min_length applies only to text (type str)',
          'min must not be greater than max',
          'default must be an integer',
        ].join('; '),
      },
    });
  });

  test('an unreadable type leaves the default and enum unjudged', () => {
    expect(problemOf({ type: 'nope', default: 'x', enum: ['x'] })).toBe(
      'unknown type "nope"; use one of: int, float, str, bool (or integer, number, string, boolean)',
    );
  });
});
