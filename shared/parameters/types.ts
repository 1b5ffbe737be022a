/**
 * The vocabulary of saved-query parameter rules: type names and their aliases,
 * the request options no parameter may be named after, and the rule shape.
 */

/** Canonical type names. The aliases in TYPE_ALIASES are accepted on input. */
export type TypeName = 'int' | 'float' | 'str' | 'bool';

export const TYPE_NAMES: readonly TypeName[] = ['int', 'float', 'str', 'bool'];

/** The names the v1 API outputs. */
export const API_TYPE_NAMES: Record<TypeName, string> = {
  int: 'integer',
  float: 'number',
  str: 'string',
  bool: 'boolean',
};

const TYPE_BY_NAME: ReadonlyMap<string, TypeName> = new Map<string, TypeName>([
  ...TYPE_NAMES.map((name): [string, TypeName] => [name, name]),
  ...TYPE_NAMES.map((name): [string, TypeName] => [API_TYPE_NAMES[name], name]),
]);

/** The canonical name for a type name or alias; undefined when unknown. */
export const typeFromName = (name: string): TypeName | undefined => TYPE_BY_NAME.get(name);

/** Request arguments the query endpoints read themselves; they cannot be parameters. */
export const RESERVED_NAMES: readonly string[] = [
  'format',
  'page',
  'page_size',
  'connection_name',
  'version',
  'stream',
  'timeout',
  'dry_run',
];

/** How long a values list is kept when its rule names no `values_ttl`. */
export const DEFAULT_VALUES_TTL = 300;

/** Longest `values_ttl`: a day. */
export const MAX_VALUES_TTL = 86_400;

/** Whether the rule takes its allowed values from the data. */
export const listsValues = (rule: Pick<ParameterRule, 'values_query' | 'values_field'>): boolean =>
  rule.values_query !== undefined || rule.values_field !== undefined;

/** Parameter names become `:name` SQL markers. */
export const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Longest accepted `pattern` rule, in characters. */
export const MAX_PATTERN_LENGTH = 500;

export interface ParameterRule {
  type?: TypeName;
  required: boolean;
  default?: unknown;
  enum?: unknown[];
  min?: number;
  max?: number;
  min_length?: number;
  max_length?: number;
  pattern?: string;
  description?: string;
  from_claim?: string;
  /** A read statement on the query's connection whose one column's distinct values are the allowed values (SQL queries). */
  values_query?: string;
  /** A field whose distinct values in the query's collection are the allowed values (mongo queries). */
  values_field?: string;
  /** Seconds a values list is kept before it is read again (with values_query or values_field). */
  values_ttl?: number;
}

export type Rules = Record<string, ParameterRule>;

/** Parameter name -> message (several problems for one parameter are joined with '; '). */
export type Problems = Record<string, string>;

/** The keys a rule object may carry, in the order they are shown. */
export const RULE_KEYS = [
  'type',
  'required',
  'default',
  'enum',
  'min',
  'max',
  'min_length',
  'max_length',
  'pattern',
  'description',
  'from_claim',
  'values_query',
  'values_field',
  'values_ttl',
] as const satisfies readonly (keyof ParameterRule)[];

/**
 * What kind of value a parameter takes: its type, or for an untyped parameter
 * what its rules imply (bounds mean a number, length or pattern mean text).
 */
export type ValueKind = TypeName | 'number' | 'text' | 'any';

export const hasNumberRules = (rule: Pick<ParameterRule, 'min' | 'max'>) => rule.min !== undefined || rule.max !== undefined;

export const hasTextRules = (rule: Pick<ParameterRule, 'min_length' | 'max_length' | 'pattern'>) =>
  rule.min_length !== undefined || rule.max_length !== undefined || rule.pattern !== undefined;

export function valueKind(rule: ParameterRule): ValueKind {
  if (rule.type) return rule.type;
  if (hasNumberRules(rule)) return 'number';
  if (hasTextRules(rule)) return 'text';
  return 'any';
}

/** Builds a record whose keys are all own data properties (a `__proto__` key stays a key). */
export const recordOf = <T>(entries: Iterable<readonly [string, T]>): Record<string, T> =>
  Object.fromEntries(entries) as Record<string, T>;
