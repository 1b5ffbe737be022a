/**
 * Parameters of a document query are bound as values, never as text: a JSON
 * string that is exactly `":name"` in the filter is replaced by the
 * parameter's (typed, rule-checked) value. A value is one scalar or an array
 * of scalars, so it can never carry an operator (`{"$gt": ""}` is refused, not
 * matched). Inside `$expr` a bound value is wrapped in `$literal`, so a string
 * such as `"$password"` stays text there instead of naming a field.
 *
 * Operators that run code or reach other data are refused wherever they
 * appear, on save and on every run.
 */

/** Operators that run JavaScript or read other collections or write: never sent. */
export const REFUSED_OPERATORS: readonly string[] = ['$where', '$function', '$accumulator', '$lookup', '$unionWith', '$out', '$merge'];

const MARKER = /^:([A-Za-z_][A-Za-z0-9_]*)$/;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The refused operators a JSON value uses as keys, each once, in order of first use. */
export function refusedOperators(value: unknown): string[] {
  const found = new Set<string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (isPlainObject(node)) {
      for (const [key, child] of Object.entries(node)) {
        if (REFUSED_OPERATORS.includes(key)) found.add(key);
        walk(child);
      }
    }
  };
  walk(value);
  return [...found];
}

/** The parameter names a JSON value uses as `":name"` strings, in order of first use. */
export function documentMarkers(value: unknown): string[] {
  const names = new Set<string>();
  const walk = (node: unknown) => {
    if (typeof node === 'string') {
      const m = MARKER.exec(node);
      if (m) names.add(m[1]);
    } else if (Array.isArray(node)) node.forEach(walk);
    else if (isPlainObject(node)) Object.values(node).forEach(walk);
  };
  walk(value);
  return [...names];
}

/** Why a parameter value cannot be bound into a document query, or null when it can. */
export function bindableProblem(value: unknown): string | null {
  const scalar = (v: unknown) => v === null || ['string', 'number', 'bigint', 'boolean'].includes(typeof v);
  if (scalar(value)) return null;
  if (Array.isArray(value) && value.every(scalar)) return null;
  return 'must be a single value (text, number, boolean or null) or an array of them: objects and operators are never bound';
}

/**
 * The value with every `":name"` string replaced by `values[name]` (which
 * must be bindable and present: the caller checked both). Keys are never
 * replaced. Objects are rebuilt as own properties, so no key is special.
 */
export function bindMarkers(value: unknown, values: Record<string, unknown>, inExpression = false): unknown {
  if (typeof value === 'string') {
    const m = MARKER.exec(value);
    if (!m || !Object.hasOwn(values, m[1])) return value;
    const bound = values[m[1]];
    return inExpression ? { $literal: bound } : bound;
  }
  if (Array.isArray(value)) return value.map((item) => bindMarkers(item, values, inExpression));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const bound = bindMarkers(child, values, inExpression || key === '$expr');
    Object.defineProperty(out, key, { value: bound, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
