import { describe, expect, test } from 'vitest';
import { API_TYPE_NAMES, RESERVED_NAMES, parseDefinitions } from '../../../shared/parameters/index.ts';
import { problemOf, rulesOf } from './helpers.ts';

/** parseDefinitions: type names, the definitions object, names, and each rule field on its own. */
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
      ['connection_name', 'dry_run', 'format', 'page', 'page_size', 'stream', 'timeout', 'version'].sort(),
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
    [{ pattern: '(' }, 'pattern is not accepted: missing closing ): ( (patterns use RE2 syntax)'],
    [{ pattern: '\\q' }, 'pattern is not accepted: invalid escape sequence: \\q'],
    [{ pattern: 'a(?=b)' }, 'pattern is not accepted: lookahead ((?=…), (?!…)) is not supported (patterns use RE2 syntax)'],
    [{ pattern: 'a(?!b)' }, 'lookahead ((?=…), (?!…)) is not supported'],
    [{ pattern: '(?<=a)b' }, 'lookbehind ((?<=…), (?<!…)) is not supported'],
    [{ pattern: '(?<!a)b' }, 'lookbehind ((?<=…), (?<!…)) is not supported'],
    [{ pattern: '(a)\\1' }, 'back references (\\1, \\k<name>) are not supported'],
    [{ pattern: '(?<n>a)\\k<n>' }, 'back references (\\1, \\k<name>) are not supported'],
    [{ pattern: '\\u00e9' }, 'invalid escape \\u (write a code point as \\x{20AC})'],
    [{ pattern: 'a{1001}' }, 'pattern is not accepted: invalid repeat count: {1001}'],
    [{ pattern: '\\pL{999}\\pL{999}\\pL{999}' }, 'steps, at most 2000): use min_length and max_length for lengths'],
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
      // RE2's own syntax: flags, POSIX classes, \x{…}, Python-style named groups, \pL.
      l: { type: 'str', pattern: '(?i)[[:alpha:]]+\\x{20AC}(?P<n>\\pL)' },
      m: { type: 'str', pattern: '.{1,999}' },
      j: { description: '' },
      k: { from_claim: 'sub' },
    });
  });
});
