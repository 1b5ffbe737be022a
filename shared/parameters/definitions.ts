/**
 * Saved definitions: `{name: typeName | ruleObject}` checked on save, and shown
 * back the way the v1 API writes them.
 */
import { finishRule } from './consistency.ts';
import { readFields, readTypeName } from './rule-fields.ts';
import {
  API_TYPE_NAMES,
  PARAMETER_NAME,
  RESERVED_NAMES,
  RULE_KEYS,
  recordOf,
  type ParameterRule,
  type Problems,
  type Rules,
} from './types.ts';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function nameProblems(name: string): string[] {
  if (!PARAMETER_NAME.test(name)) {
    return ['is not a valid parameter name (letters, digits and _, not starting with a digit)'];
  }
  if (RESERVED_NAMES.includes(name)) return ["is reserved for the request's own option"];
  return [];
}

function parseDefinition(definition: unknown): { rule?: ParameterRule; problems: string[] } {
  if (typeof definition === 'string') {
    const read = readTypeName(definition);
    if ('problem' in read) return { problems: [read.problem] };
    return finishRule(read.fields, false);
  }
  if (isObject(definition)) {
    const { fields, problems, typeFailed } = readFields(definition);
    const finished = finishRule(fields, typeFailed);
    return { rule: finished.rule, problems: [...problems, ...finished.problems] };
  }
  return { problems: ['must be a type name or a rule object'] };
}

/**
 * Checks saved definitions: `{name: typeName | ruleObject}`. Every problem is
 * returned, keyed by parameter name ('' for the whole object). Absent
 * definitions (undefined or null) mean no parameters.
 */
export function parseDefinitions(raw: unknown): { rules: Rules } | { errors: Problems } {
  if (raw === undefined || raw === null) return { rules: {} };
  if (!isObject(raw)) {
    return { errors: { '': 'parameters must be an object mapping each name to a type name or a rule object' } };
  }
  const rules: [string, ParameterRule][] = [];
  const errors: [string, string][] = [];
  for (const [name, definition] of Object.entries(raw)) {
    const parsed = parseDefinition(definition);
    const problems = [...nameProblems(name), ...parsed.problems];
    if (problems.length > 0) errors.push([name, problems.join('; ')]);
    else if (parsed.rule) rules.push([name, parsed.rule]);
  }
  return errors.length > 0 ? { errors: recordOf(errors) } : { rules: recordOf(rules) };
}

/** `required` as it follows from the rest of the rule when not given. */
const impliedRequired = (rule: ParameterRule) => rule.default === undefined;

/**
 * The definitions as the v1 API shows them: the alias type name alone where
 * only a type was given, otherwise a rule object with the alias type name and
 * `required` only where it differs from what the rest implies.
 */
export function describeDefinitions(rules: Rules): Record<string, unknown> {
  return recordOf(Object.entries(rules).map(([name, rule]) => [name, describeRule(rule)] as const));
}

function describeRule(rule: ParameterRule): unknown {
  const shown: [string, unknown][] = [];
  for (const key of RULE_KEYS) {
    const value = rule[key];
    if (value === undefined) continue;
    if (key === 'type') shown.push([key, API_TYPE_NAMES[rule.type!]]);
    else if (key === 'required') {
      if (value !== impliedRequired(rule)) shown.push([key, value]);
    } else shown.push([key, Array.isArray(value) ? [...value] : value]);
  }
  if (shown.length === 1 && shown[0][0] === 'type') return shown[0][1];
  return recordOf(shown);
}
