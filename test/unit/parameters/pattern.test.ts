import { describe, expect, test } from 'vitest';
import { MAX_PROGRAM, longestChecked, matchesWhole, patternProblem } from '../../../shared/parameters/pattern.ts';
import { one } from './helpers.ts';

/** `pattern` rules on RE2: whole-value semantics, linear time, the bounds on work, the syntax accepted. */

describe('matching', () => {
  test.each([
    ['[a-z]+', 'abc', true],
    ['[a-z]+', 'abc1', false],
    ['b', 'abc', false],
    ['a|ab', 'ab', true],
    ['cat|dog', 'catdog', false],
    ['^[A-Z]{2}$', 'AB', true],
    ['a$', 'a\n', false],
    ['.', '😀', true],
    ['.', '\n', false],
    ['(?i)abc', 'AbC', true],
    ['[[:digit:]]+', '123', true],
    ['\\pL+', 'Ünïcödé', true],
    ['\\x{20AC}', '€', true],
  ])('%s against %j: %s (the whole value must match)', (pattern, text, expected) => {
    expect(matchesWhole(pattern, text)).toBe(expected);
  });

  test.each(['(a+)+$', '(a|aa)*c', '(x+x+)+y', '(.*a){20}'])('%s on 10,000 characters answers at once (no backtracking)', (pattern) => {
    const text = `${'a'.repeat(10_000)}!`;
    expect(matchesWhole(pattern, text)).toBe(false);
    expect(one({ type: 'str', pattern }, 'query', text)).toEqual({ error: expect.stringMatching(/^must match the pattern /) });
  });
});

describe('refused on save', () => {
  test.each([
    ['a(?=b)', 'lookahead'],
    ['(?<!a)b', 'lookbehind'],
    ['(a)\\1', 'back references'],
    ['[z-a]', 'invalid character class range: z-a'],
  ])('%s: %s', (pattern, reason) => {
    expect(patternProblem(pattern)).toMatch(new RegExp(`^pattern is not accepted: .*${reason.replace(/[-[\]]/g, '\\$&')}`));
  });

  test('a pattern whose repetitions compile past the bound is refused, one under it accepted', () => {
    expect(patternProblem('\\d{999}\\d{999}\\d{999}')).toMatch(new RegExp(`^pattern is too large once compiled \\(\\d+ steps, at most ${MAX_PROGRAM}\\)`));
    expect(patternProblem('.{1,999}')).toBeUndefined();
  });
});

describe('the work bound', () => {
  test('small patterns check long values; large ones shorter values, each at least 1000 characters', () => {
    expect(longestChecked('[^<>]*')).toBeGreaterThanOrEqual(200_000);
    expect(longestChecked('\\d{999}\\d{999}')).toBeGreaterThanOrEqual(1000);
    expect(longestChecked('\\d{999}\\d{999}')).toBeLessThan(longestChecked('\\d{1,10}'));
  });

  test('a value past it is refused unmatched, with the bound in the message, every other problem listed too', () => {
    const pattern = '(?:\\pL|\\pN)*(?:\\pL|\\pN){999}';
    const longest = longestChecked(pattern);
    const under = 'éa1'.repeat(Math.floor(longest / 3));
    expect(one({ type: 'str', pattern }, 'json', under)).toEqual({ value: under });
    expect(one({ type: 'str', pattern, max_length: 5 }, 'json', `${under}éa1`)).toEqual({
      error: `must be at most 5 characters long; is too long to be checked against the pattern (at most ${longest} characters)`,
    });
  });
});
