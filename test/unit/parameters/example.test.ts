import { RE2JS } from 're2js';
import { describe, expect, test } from 'vitest';
import {
  exampleValue,
  parseDefinitions,
  resolveValues,
  type ParameterRule,
} from '../../../shared/parameters/index.ts';

const TYPES = [undefined, 'int', 'float', 'str', 'bool'] as const;

const PATTERNS = [
  '[a-z]+',
  '[A-Z]{2}-\\d{4}',
  '^\\d{3}$',
  '[^@\\s]+@[^@\\s]+\\.[a-z]{2,}',
  '(foo|bar)+baz?',
  'cat|dog',
  '\\p{L}+',
  '[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}',
  '\\w+(?:\\.\\w+)*',
  '\\x{1F600}x',
  '[^a-zA-Z0-9]',
  '(?<year>\\d{4})-(?<month>0[1-9]|1[0-2])',
  '\\bword\\b',
  '(?i)abc',
  '[[:alpha:]]+[[:digit:]]',
  '\\pL\\PL',
  '(?P<code>[A-Z]{3})',
  '[]a]+',
  '[\\]\\\\]+',
  '\\$\\d+(?:\\.\\d\\d)?',
];

/** Rule pieces that are combined two at a time; shapes that do not parse are dropped. */
const PIECES: Record<string, unknown>[] = [
  {},
  { required: false },
  { description: 'documented' },
  { enum: ['b', 'a'] },
  { enum: [3, 7] },
  { enum: [true] },
  { enum: [2.5, 1] },
  { min: 5 },
  { max: -3 },
  { min: 2, max: 4 },
  { min: 0.5, max: 0.7 },
  { min: 10, max: 10 },
  { min: -1e6 },
  { min_length: 10 },
  { max_length: 3 },
  { min_length: 2, max_length: 2 },
  { max_length: 0 },
  { default: 'dflt' },
  { default: 8 },
  { default: false },
  { default: 0.25 },
  ...PATTERNS.map((pattern) => ({ pattern })),
  { pattern: '[a-z]+', min_length: 6 },
  { pattern: '\\d{2,}', max_length: 4 },
];

function shapes(): { label: string; rule: ParameterRule }[] {
  const found = new Map<string, ParameterRule>();
  for (const type of TYPES) {
    for (const first of PIECES) {
      for (const second of PIECES) {
        const definition = { ...(type ? { type } : {}), ...first, ...second };
        const parsed = parseDefinitions({ p: definition });
        if ('rules' in parsed) found.set(JSON.stringify(definition), parsed.rules.p);
      }
    }
  }
  return [...found].map(([label, rule]) => ({ label, rule }));
}

const SHAPES = shapes();

/** How a value is written in a query string. */
const asText = (value: unknown) => String(value);

describe('exampleValue', () => {
  test('many rule shapes are generated', () => {
    expect(SHAPES.length).toBeGreaterThan(500);
  });

  test.each(SHAPES)('the example satisfies $label (as JSON and as query text)', ({ rule }) => {
    const example = exampleValue(rule);
    if (example === null) {
      // Only a pattern may defeat the generator.
      expect(rule.pattern).toBeDefined();
      return;
    }
    const rules = { p: rule };
    expect(resolveValues(rules, { p: example }, { source: 'json' })).toEqual({ values: { p: example } });
    // Query text stays text for an untyped parameter that no enum or bound makes anything else.
    const textStays = rule.type === undefined && !rule.enum && rule.min === undefined && rule.max === undefined;
    const fromQuery = textStays ? asText(example) : example;
    expect(resolveValues(rules, { p: asText(example) }, { source: 'query' })).toEqual({ values: { p: fromQuery } });
  });

  test.each(PATTERNS)('pattern %s gets an example', (pattern) => {
    const example = exampleValue({ type: 'str', required: true, pattern });
    expect(example).toEqual(expect.any(String));
    expect(RE2JS.matches(pattern, example as string)).toBe(true);
  });

  test.each([
    ['[a-z]+', 100, 100],
    ['(ab)+c?', 999, undefined],
    ['\\w+(?:\\.\\w+)*', 50, 60],
    ['\\d{2,}', 6, 8],
  ])('pattern %s gets an example between %s and %s characters', (pattern, minLength, maxLength) => {
    const rule: ParameterRule = { type: 'str', required: true, pattern, min_length: minLength, max_length: maxLength };
    const example = exampleValue(rule);
    expect(example).toEqual(expect.any(String));
    expect(resolveValues({ p: rule }, { p: example }, { source: 'query' })).toEqual({ values: { p: example } });
  });

  test('a from_claim parameter gets an example of its type', () => {
    const rule: ParameterRule = { type: 'int', required: true, from_claim: 'tenant', min: 3 };
    const example = exampleValue(rule);
    expect(example).toBe(3);
    expect(resolveValues({ p: rule }, {}, { source: 'json', claims: { tenant: example } })).toEqual({
      values: { p: 3 },
    });
  });

  test('the default comes first, then the first enum item, then a value inside the bounds', () => {
    expect(exampleValue({ type: 'int', required: false, default: 4, enum: [4, 9] })).toBe(4);
    expect(exampleValue({ type: 'int', required: true, enum: [9, 4] })).toBe(9);
    expect(exampleValue({ type: 'int', required: true, min: 5, max: 8 })).toBe(5);
    expect(exampleValue({ type: 'float', required: true, max: -2.5 })).toBe(-2.5);
    expect(exampleValue({ type: 'str', required: true, min_length: 9 })).toHaveLength(9);
    expect(exampleValue({ type: 'bool', required: true })).toBe(true);
  });

  test.each([
    ['(a)\\1', undefined, 'a back reference (RE2 refuses it)'],
    ['(?=.*\\d)[a-z\\d]{8,}', undefined, 'a lookahead (RE2 refuses it)'],
    ['\\Qa.b\\E', undefined, 'quoted text the walker does not read'],
    ['[a-z]{5}', 4, 'a pattern longer than max_length allows'],
  ])('pattern %s (max_length %s) has no example: %s', (pattern, maxLength, _why) => {
    expect(exampleValue({ type: 'str', required: true, pattern, max_length: maxLength })).toBeNull();
  });
});
