import { describe, expect, test } from 'vitest';
import { API_TYPE_NAMES, RESERVED_NAMES, parseDefinitions, type Rules } from '../../../shared/parameters/index.ts';

/** The rules of valid definitions; fails the test with the problems otherwise. */
function rulesOf(raw: unknown): Rules {
  const parsed = parseDefinitions(raw);
  if ('errors' in parsed) throw new Error(`unexpected problems: ${JSON.stringify(parsed.errors)}`);
  return parsed.rules;
}

/** The problem for parameter `p` of `{p: definition}`. */
function problemOf(definition: unknown): string {
  const parsed = parseDefinitions({ p: definition });
  if (!('errors' in parsed)) throw new Error(`expected a problem, got ${JSON.stringify(parsed.rules)}`);
  return parsed.errors.p;
}

describe('type names', () => {
  test.each([
    ['int', 'int'],
    ['integer', 'int'],
    ['float', 'float'],
    ['number', 'float'],
    ['str', 'str'],
    ['string', 'str'],
    ['bool', 'bool'],
    ['boolean', 'bool'],
  ])('%s is type %s, as a plain name and in a rule object', (name, type) => {
    expect(rulesOf({ p: name }).p).toEqual({ type, required: true });
    expect(rulesOf({ p: { type: name } }).p).toEqual({ type, required: true });
  });

  test.each(['INT', 'text', 'int64', 'decimal', ''])('unknown type %j is refused, listing the valid names', (name) => {
    const expected = 'use one of: int, float, str, bool (or integer, number, string, boolean)';
    expect(problemOf(name)).toContain(expected);
    expect(problemOf({ type: name })).toContain(expected);
  });

  test('a type that is not a string is refused', () => {
    expect(problemOf({ type: 5 })).toContain('unknown type 5');
  });

  test('the API names are the aliases', () => {
    expect(API_TYPE_NAMES).toEqual({ int: 'integer', float: 'number', str: 'string', bool: 'boolean' });
  });
});

describe('the definitions object', () => {
  test.each([[[]], ['int'], [5], [true]])('%j is refused as a whole', (raw) => {
    expect(parseDefinitions(raw)).toEqual({ errors: { '': expect.stringContaining('must be an object') } });
  });

  test('absent definitions mean no parameters', () => {
    expect(parseDefinitions(undefined)).toEqual({ rules: {} });
    expect(parseDefinitions(null)).toEqual({ rules: {} });
    expect(parseDefinitions({})).toEqual({ rules: {} });
  });

  test.each([5, null, [], true])('a definition %j that is neither a type name nor an object is refused', (definition) => {
    expect(problemOf(definition)).toBe('must be a type name or a rule object');
  });

  test('an object with no rules is an untyped required parameter', () => {
    expect(rulesOf({ p: {} }).p).toEqual({ required: true });
  });

  test('keys holding undefined are left out', () => {
    expect(rulesOf({ p: { type: 'int', min: undefined } }).p).toEqual({ type: 'int', required: true });
  });
});

describe('names', () => {
  test.each(['a', '_x', 'A1', 'user_id', '__proto__', 'constructor'])('%s is a valid name', (name) => {
    const rules = rulesOf(JSON.parse(JSON.stringify({ [name]: 'int' })));
    expect(Object.hasOwn(rules, name)).toBe(true);
    expect(Object.getPrototypeOf(rules)).toBe(Object.prototype);
  });

  test.each(['1a', 'a-b', 'a b', '', 'é', 'a.b'])('%j is not a valid name', (name) => {
    const parsed = parseDefinitions({ [name]: 'int' });
    expect(parsed).toEqual({ errors: { [name]: expect.stringContaining('is not a valid parameter name') } });
  });

  test.each([...RESERVED_NAMES])('%s is reserved', (name) => {
    expect(parseDefinitions({ [name]: 'str' })).toEqual({
      errors: { [name]: "is reserved for the request's own option" },
    });
  });

  test('the reserved names are the request options', () => {
    expect([...RESERVED_NAMES].sort()).toEqual(
      ['connection_name', 'format', 'page', 'page_size', 'stream', 'timeout', 'version'].sort(),
    );
  });
});

describe('rule fields', () => {
  test('every rule key is read', () => {
    const definition = {
      type: 'string',
      required: false,
      default: 'abc',
      enum: ['abc', 'abd'],
      min_length: 1,
      max_length: 5,
      pattern: 'ab[a-z]',
      description: 'A code',
    };
    expect(rulesOf({ p: definition }).p).toEqual({ ...definition, type: 'str' });
    expect(rulesOf({ p: { type: 'int', min: -1, max: 1.5 } }).p).toEqual({ type: 'int', required: true, min: -1, max: 1.5 });
    expect(rulesOf({ p: { type: 'int', from_claim: 'tenant' } }).p).toEqual({
      type: 'int',
      required: true,
      from_claim: 'tenant',
    });
  });

  test.each([
    [{ bogus: 1 }, 'unknown rule "bogus"; known rules are type, required, default, enum'],
    [{ Type: 'int' }, 'unknown rule "Type"'],
    [{ required: 'yes' }, 'required must be true or false'],
    [{ required: 1 }, 'required must be true or false'],
    [{ default: null }, 'default cannot be null'],
    [{ enum: [] }, 'enum must be a non-empty list'],
    [{ enum: 'a' }, 'enum must be a non-empty list'],
    [{ enum: [[1]] }, 'enum values must be strings, numbers or booleans'],
    [{ enum: [{}] }, 'enum values must be strings, numbers or booleans'],
    [{ enum: ['a', null] }, 'enum values must be strings, numbers or booleans'],
    [{ min: '1' }, 'min must be a number'],
    [{ max: null }, 'max must be a number'],
    [{ min_length: -1 }, 'min_length must be a whole number of 0 or more'],
    [{ max_length: 1.5 }, 'max_length must be a whole number of 0 or more'],
    [{ max_length: '3' }, 'max_length must be a whole number of 0 or more'],
    [{ pattern: 5 }, 'pattern must be a string'],
    [{ pattern: 'a'.repeat(501) }, 'pattern must be at most 500 characters'],
    [{ pattern: '(' }, 'pattern is not a valid regular expression'],
    [{ pattern: '\\q' }, 'pattern is not a valid regular expression'], // invalid under the u flag
    [{ description: 5 }, 'description must be a string'],
    [{ from_claim: '' }, 'from_claim must be the name of a claim'],
    [{ from_claim: 5 }, 'from_claim must be the name of a claim'],
  ])('%j is refused: %s', (definition, message) => {
    expect(problemOf(definition)).toContain(message);
  });

  test('the passing counterparts are accepted', () => {
    rulesOf({
      a: { required: true },
      b: { default: 'x' },
      c: { enum: ['a', 1, true] },
      d: { min: 1 },
      e: { max: 0 },
      f: { type: 'str', min_length: 0 },
      g: { type: 'str', max_length: 3 },
      h: { type: 'str', pattern: 'a'.repeat(500) },
      i: { type: 'str', pattern: '\\p{L}+' },
      j: { description: '' },
      k: { from_claim: 'sub' },
    });
  });
});

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
          'unknown rule "bogus"; known rules are type, required, default, enum, min, max, min_length, max_length, pattern, description, from_claim',
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
