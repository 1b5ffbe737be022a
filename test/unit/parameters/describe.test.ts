import { describe, expect, test } from 'vitest';
import { describeDefinitions } from '../../../shared/parameters/index.ts';
import { rulesOf } from './helpers.ts';

const SAVED = {
  plain_int: 'int',
  plain_alias: 'number',
  plain_str: 'str',
  plain_bool: 'boolean',
  untyped: {},
  untyped_optional: { required: false },
  typed_optional: { type: 'int', required: false },
  with_default: { type: 'float', default: 2.5 },
  default_stated_optional: { type: 'int', required: false, default: 1 },
  required_stated: { type: 'str', required: true },
  everything_text: {
    type: 'string',
    default: 'ab',
    enum: ['ab', 'cd'],
    min_length: 2,
    max_length: 2,
    pattern: '[a-z]+',
    description: 'Two letters',
  },
  everything_number: { type: 'integer', min: 1, max: 10, enum: [1, 5], description: 'Small' },
  untyped_number: { min: 0 },
  untyped_text: { pattern: '\\d+' },
  untyped_enum: { enum: [1, 'x', true], default: 'x' },
  claim: { type: 'int', from_claim: 'tenant_id' },
  claim_required_stated: { from_claim: 'sub', required: true },
};

describe('describeDefinitions', () => {
  test('shows alias type names, plain names where only a type was given, rule objects otherwise', () => {
    expect(describeDefinitions(rulesOf(SAVED))).toEqual({
      plain_int: 'integer',
      plain_alias: 'number',
      plain_str: 'string',
      plain_bool: 'boolean',
      untyped: {},
      untyped_optional: { required: false },
      typed_optional: { type: 'integer', required: false },
      with_default: { type: 'number', default: 2.5 },
      default_stated_optional: { type: 'integer', default: 1 },
      required_stated: 'string',
      everything_text: { ...SAVED.everything_text },
      everything_number: { ...SAVED.everything_number },
      untyped_number: { min: 0 },
      untyped_text: { pattern: '\\d+' },
      untyped_enum: { enum: [1, 'x', true], default: 'x' },
      claim: { type: 'integer', from_claim: 'tenant_id' },
      claim_required_stated: { from_claim: 'sub' },
    });
  });

  test('the shown rule objects list keys in the rule order', () => {
    const shown = describeDefinitions(rulesOf({ p: { description: 'd', max: 3, type: 'int', min: 1 } }));
    expect(Object.keys(shown.p as object)).toEqual(['type', 'min', 'max', 'description']);
  });

  test('round trip: parsing what is shown gives the same rules', () => {
    const rules = rulesOf(SAVED);
    const shown = describeDefinitions(rules);
    expect(rulesOf(JSON.parse(JSON.stringify(shown)))).toEqual(rules);
  });

  test('the shown definitions do not share arrays with the rules', () => {
    const rules = rulesOf({ p: { enum: ['a'] } });
    const shown = describeDefinitions(rules) as { p: { enum: string[] } };
    shown.p.enum.push('b');
    expect(rules.p.enum).toEqual(['a']);
  });

  test('no definitions show as an empty object', () => {
    expect(describeDefinitions({})).toEqual({});
  });
});
