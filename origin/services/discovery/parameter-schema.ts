import { displayPattern } from '../../../shared/parameters/check.ts';
import { API_TYPE_NAMES, RESERVED_NAMES, type ParameterRule, type Rules, exampleValue } from '../../../shared/parameters/index.ts';
import { valueKind } from '../../../shared/parameters/types.ts';

/**
 * Saved-query parameter rules as OpenAPI 3.1 (JSON Schema 2020-12): a query
 * parameter per rule for `GET /q/<name>`, a `params` object for the body of
 * `POST /q/<name>`. Rules map one to one (type, enum, min/max, lengths,
 * pattern, default, description, required); the pattern is shown anchored,
 * as it is applied to the whole value.
 */

export type JsonSchema = Record<string, unknown>;

export interface ParameterObject {
  name: string;
  in: 'query' | 'path' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
  example?: unknown;
}

/** An untyped parameter takes any single value (never an array or object). */
export const SINGLE_VALUE: JsonSchema = { type: ['string', 'number', 'boolean', 'null'] };

/** The JSON Schema type of a rule: its own, or what its rules imply (bounds: a number; lengths or pattern: text). */
function schemaType(rule: ParameterRule): JsonSchema {
  const kind = valueKind(rule);
  if (kind === 'any') return { ...SINGLE_VALUE };
  if (kind === 'number') return { type: 'number' };
  if (kind === 'text') return { type: 'string' };
  return { type: API_TYPE_NAMES[kind] };
}

/** The value schema of one rule, description included. */
export function ruleSchema(rule: ParameterRule): JsonSchema {
  const schema: JsonSchema = schemaType(rule);
  if (rule.enum !== undefined) schema.enum = [...rule.enum];
  if (rule.min !== undefined) schema.minimum = rule.min;
  if (rule.max !== undefined) schema.maximum = rule.max;
  if (rule.min_length !== undefined) schema.minLength = rule.min_length;
  if (rule.max_length !== undefined) schema.maxLength = rule.max_length;
  const pattern = rule.pattern === undefined ? undefined : schemaPattern(rule.pattern);
  if (pattern !== undefined) schema.pattern = pattern;
  if (rule.default !== undefined) schema.default = rule.default;
  if (rule.description !== undefined) schema.description = rule.description;
  return schema;
}

/**
 * JSON Schema reads `pattern` as an ECMA-262 regular expression. Patterns are
 * RE2's syntax; one using RE2's own forms ((?i), [[:alpha:]], \x{…}, \pL) is
 * left out rather than shown as an expression validators cannot compile.
 * Compiled here, never run.
 */
function schemaPattern(pattern: string): string | undefined {
  const shown = displayPattern(pattern);
  try {
    new RegExp(shown, 'u');
    return shown;
  } catch {
    return undefined;
  }
}

/** Rules a request can give a value for: `from_claim` ones come from the caller's sign-in token, never the request. */
export const sendableRules = (rules: Rules): Array<[string, ParameterRule]> =>
  Object.entries(rules).filter(([, rule]) => rule.from_claim === undefined);

const UNDECLARED_NOTE = 'Used by the query without a declared rule: required, passed through as given.';

/** `GET /q/<name>`: one query-string parameter per sendable rule, then the undeclared markers. */
export function queryParameters(rules: Rules, undeclared: string[]): ParameterObject[] {
  const declared = sendableRules(rules).map(([name, rule]): ParameterObject => {
    const parameter: ParameterObject = { name, in: 'query', required: rule.required, schema: ruleSchema(rule) };
    if (rule.description !== undefined) parameter.description = rule.description;
    const example = exampleValue(rule);
    if (example !== null && example !== undefined) parameter.example = example;
    return parameter;
  });
  // A marker named like a request option cannot be given in the query string (the option wins).
  const passed = undeclared.filter((name) => !RESERVED_NAMES.includes(name) && !Object.hasOwn(rules, name));
  return [
    ...declared,
    ...passed.map((name): ParameterObject => ({ name, in: 'query', required: true, description: UNDECLARED_NOTE, schema: { type: 'string' } })),
  ];
}

/** `POST /q/<name>`: the `params` object, typed JSON values. */
export function paramsSchema(rules: Rules, undeclared: string[]): JsonSchema {
  const properties: Array<[string, JsonSchema]> = [];
  const required: string[] = [];
  for (const [name, rule] of sendableRules(rules)) {
    properties.push([name, ruleSchema(rule)]);
    if (rule.required) required.push(name);
  }
  for (const name of undeclared) {
    if (Object.hasOwn(rules, name)) continue;
    properties.push([name, { ...SINGLE_VALUE, description: UNDECLARED_NOTE }]);
    required.push(name);
  }
  // fromEntries: a parameter named `__proto__` stays an own key.
  return { type: 'object', properties: Object.fromEntries(properties), ...(required.length > 0 ? { required } : {}) };
}
