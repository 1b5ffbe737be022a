/**
 * Reading a rule object field by field: each key is checked on its own
 * (unknown keys, wrong value types, a pattern RE2 does not accept). How the
 * fields fit together is consistency.ts's business.
 */
import { isSingleValue } from './convert.ts';
import { patternProblem } from './pattern.ts';
import {
  API_TYPE_NAMES,
  MAX_PATTERN_LENGTH,
  MAX_VALUES_TTL,
  RULE_KEYS,
  TYPE_NAMES,
  typeFromName,
  type ParameterRule,
} from './types.ts';

/** The fields read so far; `required` is filled in later from the default. */
export type RuleFields = Omit<ParameterRule, 'required'> & { required?: boolean };

const RULE_KEY_SET: ReadonlySet<string> = new Set(RULE_KEYS);

const TYPE_HINT = `${TYPE_NAMES.join(', ')} (or ${TYPE_NAMES.map((name) => API_TYPE_NAMES[name]).join(', ')})`;

export const unknownTypeProblem = (name: unknown) => `unknown type ${JSON.stringify(name)}; use one of: ${TYPE_HINT}`;

const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

type Reader = (value: unknown, fields: RuleFields) => string | undefined;

const number =
  (key: 'min' | 'max'): Reader =>
  (value, fields) => {
    if (!isFiniteNumber(value)) return `${key} must be a number`;
    fields[key] = value + 0;
  };

const count =
  (key: 'min_length' | 'max_length'): Reader =>
  (value, fields) => {
    if (!isCount(value)) return `${key} must be a whole number of 0 or more`;
    fields[key] = value;
  };

const READERS: Record<(typeof RULE_KEYS)[number], Reader> = {
  type: (value, fields) => {
    const type = typeof value === 'string' ? typeFromName(value) : undefined;
    if (!type) return unknownTypeProblem(value);
    fields.type = type;
  },
  required: (value, fields) => {
    if (typeof value !== 'boolean') return 'required must be true or false';
    fields.required = value;
  },
  default: (value, fields) => {
    if (value === null) {
      return 'default cannot be null (leave it out and set required: false for a parameter that may be left empty)';
    }
    fields.default = value;
  },
  enum: (value, fields) => {
    if (!Array.isArray(value) || value.length === 0) return 'enum must be a non-empty list';
    if (!value.every(isSingleValue)) return 'enum values must be strings, numbers or booleans';
    fields.enum = [...value];
  },
  min: number('min'),
  max: number('max'),
  min_length: count('min_length'),
  max_length: count('max_length'),
  pattern: (value, fields) => {
    if (typeof value !== 'string') return 'pattern must be a string';
    if (value.length > MAX_PATTERN_LENGTH) return `pattern must be at most ${MAX_PATTERN_LENGTH} characters`;
    const problem = patternProblem(value);
    if (problem) return problem;
    fields.pattern = value;
  },
  description: (value, fields) => {
    if (typeof value !== 'string') return 'description must be a string';
    fields.description = value;
  },
  from_claim: (value, fields) => {
    if (typeof value !== 'string' || value === '') return 'from_claim must be the name of a claim';
    fields.from_claim = value;
  },
  values_query: (value, fields) => {
    if (typeof value !== 'string' || value.trim() === '') return 'values_query must be a SQL statement';
    fields.values_query = value;
  },
  values_field: (value, fields) => {
    if (typeof value !== 'string' || value === '') return 'values_field must be the name of a field';
    fields.values_field = value;
  },
  values_ttl: (value, fields) => {
    if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > MAX_VALUES_TTL) {
      return `values_ttl must be a whole number of seconds from 1 to ${MAX_VALUES_TTL}`;
    }
    fields.values_ttl = value as number;
  },
};

/**
 * Reads every key of a rule object. `typeFailed` tells the consistency
 * checks that the value kind is unknown, so defaults and enums cannot be judged.
 */
export function readFields(object: Record<string, unknown>): {
  fields: RuleFields;
  problems: string[];
  typeFailed: boolean;
} {
  const fields: RuleFields = {};
  const problems: string[] = [];
  let typeFailed = false;
  for (const [key, value] of Object.entries(object)) {
    if (value === undefined) continue;
    if (!RULE_KEY_SET.has(key)) {
      problems.push(`unknown rule ${JSON.stringify(key)}; known rules are ${RULE_KEYS.join(', ')}`);
      continue;
    }
    const problem = READERS[key as (typeof RULE_KEYS)[number]](value, fields);
    if (problem) {
      problems.push(problem);
      if (key === 'type') typeFailed = true;
    }
  }
  return { fields, problems, typeFailed };
}

/** A definition given as a plain type name. */
export function readTypeName(name: string): { fields: RuleFields } | { problem: string } {
  const type = typeFromName(name);
  return type ? { fields: { type } } : { problem: unknownTypeProblem(name) };
}
