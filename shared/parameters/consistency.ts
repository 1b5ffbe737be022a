/**
 * How the fields of one rule fit together: which rules apply to which type,
 * bounds in order, required against default and from_claim, and a default and
 * enum list that satisfy the other rules.
 */
import { checkRules } from './check.ts';
import { fromJson } from './convert.ts';
import type { RuleFields } from './rule-fields.ts';
import { hasNumberRules, hasTextRules, listsValues, valueKind, type ParameterRule } from './types.ts';

const NUMBER_RULES = ['min', 'max'] as const;
const TEXT_RULES = ['min_length', 'max_length', 'pattern'] as const;

function applicability(fields: RuleFields): string[] {
  const problems: string[] = [];
  const { type } = fields;
  if (type === 'str' || type === 'bool') {
    for (const key of NUMBER_RULES) {
      if (fields[key] !== undefined) problems.push(`${key} applies only to numbers (type int or float)`);
    }
  }
  if (type === 'int' || type === 'float' || type === 'bool') {
    for (const key of TEXT_RULES) {
      if (fields[key] !== undefined) problems.push(`${key} applies only to text (type str)`);
    }
  }
  if (type === undefined && hasNumberRules(fields) && hasTextRules(fields)) {
    problems.push(
      'number rules (min, max) and text rules (min_length, max_length, pattern) cannot be combined; give the parameter a type',
    );
  }
  return problems;
}

function bounds(fields: RuleFields): string[] {
  const { min, max, min_length: minLength, max_length: maxLength } = fields;
  const problems: string[] = [];
  if (min !== undefined && max !== undefined) {
    if (min > max) problems.push('min must not be greater than max');
    else if (fields.type === 'int' && Math.ceil(min) > Math.floor(max)) {
      problems.push('min and max leave no integer between them');
    }
  }
  if (minLength !== undefined && maxLength !== undefined && minLength > maxLength) {
    problems.push('min_length must not be greater than max_length');
  }
  return problems;
}

function listing(fields: RuleFields): string[] {
  const problems: string[] = [];
  if (fields.values_query !== undefined && fields.values_field !== undefined) {
    problems.push('values_query (SQL queries) and values_field (mongo queries) cannot be combined');
  }
  if (listsValues(fields)) {
    if (fields.from_claim !== undefined) problems.push('a from_claim parameter cannot list values (its value comes from the sign-in token)');
  } else if (fields.values_ttl !== undefined) {
    problems.push('values_ttl applies only with values_query or values_field');
  }
  return problems;
}

function requiredness(fields: RuleFields): string[] {
  const problems: string[] = [];
  const hasDefault = fields.default !== undefined;
  if (fields.from_claim !== undefined) {
    if (hasDefault) problems.push('a from_claim parameter cannot have a default (its value comes from the sign-in token)');
    if (fields.required === false) problems.push('a from_claim parameter is always required');
  } else if (fields.required === true && hasDefault) {
    problems.push('required cannot be true when a default is given');
  }
  return problems;
}

/** Problems of one value the definition itself gives (the default or an enum item). */
function valueProblems(rule: ParameterRule, value: unknown): { value: unknown; problems: string[] } {
  const converted = fromJson(valueKind(rule), value);
  if ('problem' in converted) return { value, problems: [converted.problem] };
  return checkRules(rule, converted.value);
}

function givenValues(rule: ParameterRule): { rule: ParameterRule; problems: string[] } {
  const problems: string[] = [];
  let checked = rule;
  if (rule.enum) {
    const withoutEnum: ParameterRule = { ...rule, enum: undefined };
    const items = rule.enum.map((item) => {
      const result = valueProblems(withoutEnum, item);
      for (const problem of result.problems) problems.push(`enum value ${JSON.stringify(item)} ${problem}`);
      return result.value;
    });
    checked = { ...checked, enum: items };
  }
  if (rule.default !== undefined) {
    const result = valueProblems(checked, rule.default);
    for (const problem of result.problems) problems.push(`default ${problem}`);
    checked = { ...checked, default: result.value };
  }
  return { rule: checked, problems };
}

/**
 * The finished rule, or the problems. `typeFailed`: the type was given but
 * unreadable, so the default and enum items are not judged against a guess.
 */
export function finishRule(fields: RuleFields, typeFailed: boolean): { rule: ParameterRule; problems: string[] } {
  const problems = [...applicability(fields), ...bounds(fields), ...requiredness(fields), ...listing(fields)];
  const rule = ordered({ ...fields, required: fields.required ?? fields.default === undefined });
  if (typeFailed) return { rule, problems };
  const given = givenValues(rule);
  return { rule: ordered(given.rule), problems: [...problems, ...given.problems] };
}

/** The rule with its keys in the shown order and no undefined members. */
function ordered(rule: ParameterRule): ParameterRule {
  const { type, required, default: fallback, enum: items, min, max, min_length, max_length, pattern } = rule;
  const { description, from_claim, values_query, values_field, values_ttl } = rule;
  const all: ParameterRule = {
    type,
    required,
    default: fallback,
    enum: items,
    min,
    max,
    min_length,
    max_length,
    pattern,
    description,
    from_claim,
    values_query,
    values_field,
    values_ttl,
  };
  return Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined)) as unknown as ParameterRule;
}
