import { Decimal, Instant, JsonValue, SqlDate, SqlTime, type Value, type ValueKind } from '../../values.ts';
import { integerFromText } from '../json-values.ts';
import { dateText, instantMicrosFromText, timeText } from '../temporal.ts';

/**
 * ClickHouse columns, as `JSONCompactEachRowWithNamesAndTypes` writes them
 * under the output settings of `OUTPUT_SETTINGS` (statement.ts): 64-bit and
 * wider integers and decimals quoted (exact text, never a double), decimals
 * with their trailing zeros, date-times in ISO 8601 UTC (`...Z`), NaN and
 * infinities quoted, named tuples as objects. Every DateTime is an instant
 * (ClickHouse stores seconds since the epoch whatever zone a column shows
 * it in), so it becomes an `Instant`, shown in Sluice's own zone.
 */

/** A parsed type: `Nullable(Array(Tuple(a Int64, b String)))`; `field` names a named tuple's element. */
export interface TypeNode {
  name: string;
  args: TypeNode[];
  field: string | null;
}

export interface ClickhouseType {
  kind: ValueKind;
  /** From the row's JSON value to the value model. */
  convert: (value: unknown) => Value;
}

const WRAPPERS = new Set(['Nullable', 'LowCardinality', 'SimpleAggregateFunction']);
const SMALL_INTEGERS = new Set(['Int8', 'Int16', 'Int32', 'UInt8', 'UInt16', 'UInt32']);
const WIDE_INTEGERS = new Set(['Int64', 'UInt64', 'Int128', 'UInt128', 'Int256', 'UInt256']);
const FLOATS = new Set(['Float32', 'Float64', 'BFloat16']);
const TEXTS = new Set(['String', 'FixedString', 'UUID', 'Enum8', 'Enum16', 'Enum', 'IPv4', 'IPv6']);
const STRUCTURED = new Set(['Array', 'Map', 'Tuple', 'Nested', 'JSON', 'Object', 'Dynamic', 'Variant']);

/** Parses a ClickHouse type name; arguments that are not types (`'UTC'`, `6`, enum members) become leaf nodes. */
export function parseType(text: string): TypeNode {
  let i = 0;
  const skip = () => {
    while (text[i] === ' ') i++;
  };
  const node = (): TypeNode => {
    skip();
    const start = i;
    if (text[i] === "'") {
      i++;
      while (i < text.length && text[i] !== "'") i += text[i] === '\\' ? 2 : 1;
      i++;
      return { name: text.slice(start, i), args: [], field: null };
    }
    while (i < text.length && !'(), '.includes(text[i])) i++;
    let name = text.slice(start, i);
    let field: string | null = null;
    skip();
    // A named tuple element: `name Type`.
    if (i < text.length && !'(),'.includes(text[i])) {
      field = name;
      const typeStart = i;
      while (i < text.length && !'(), '.includes(text[i])) i++;
      name = text.slice(typeStart, i);
    }
    const args: TypeNode[] = [];
    if (text[i] === '(') {
      i++;
      while (i < text.length && text[i] !== ')') {
        args.push(node());
        skip();
        if (text[i] === ',') i++;
        else if (text[i] !== ')') {
          // Enum members (`'a' = 1`) and the like: skip to the next separator.
          while (i < text.length && text[i] !== ',' && text[i] !== ')') i++;
          if (text[i] === ',') i++;
        }
      }
      i++;
    }
    skip();
    return { name, args, field };
  };
  return node();
}

/** The type under Nullable/LowCardinality/SimpleAggregateFunction wrappers. */
export function unwrap(node: TypeNode): TypeNode {
  let current = node;
  while (WRAPPERS.has(current.name) && current.args.length > 0) current = current.args[current.args.length - 1];
  return current;
}

/** The Nullable wrapper dropped (under LowCardinality too), for schema listings that say `nullable` apart. */
export function withoutNullable(type: string): { type: string; nullable: boolean } {
  const nullable = /^(?:LowCardinality\()?Nullable\(/.test(type);
  if (!nullable) return { type, nullable: false };
  if (type.startsWith('Nullable(')) return { type: type.slice('Nullable('.length, -1), nullable };
  return { type: `LowCardinality(${type.slice('LowCardinality(Nullable('.length, -2)})`, nullable };
}

const float = (value: unknown): number => {
  if (typeof value === 'number') return value;
  const text = String(value);
  if (text === 'nan' || text === '-nan') return Number.NaN;
  if (text === 'inf' || text === '+inf') return Number.POSITIVE_INFINITY;
  if (text === '-inf') return Number.NEGATIVE_INFINITY;
  return Number(text);
};

const wideInteger = (value: unknown): number | bigint => (typeof value === 'number' ? value : integerFromText(String(value)));

/** An instant from ClickHouse's ISO output (`2024-01-01T21:34:05.123456Z`); text it cannot read stays text. */
const instant = (value: unknown): Value => {
  const micros = instantMicrosFromText(String(value).replace('T', ' '));
  return micros === null ? String(value) : new Instant(micros);
};

/** What one column's values become. */
export function clickhouseType(typeName: string): ClickhouseType {
  const node = unwrap(parseType(typeName));
  const name = node.name;
  const orNull = (convert: (value: unknown) => Value) => (value: unknown) => (value === null ? null : convert(value));
  if (SMALL_INTEGERS.has(name)) return { kind: 'integer', convert: orNull((v) => v as number) };
  if (WIDE_INTEGERS.has(name)) return { kind: 'integer', convert: orNull(wideInteger) };
  if (FLOATS.has(name)) return { kind: 'float', convert: orNull(float) };
  if (name.startsWith('Decimal')) return { kind: 'decimal', convert: orNull((v) => new Decimal(String(v))) };
  if (name === 'Bool') return { kind: 'boolean', convert: orNull((v) => v === true || v === 1 || v === 'true') };
  if (TEXTS.has(name)) return { kind: 'text', convert: orNull((v) => String(v)) };
  if (name === 'Date' || name === 'Date32') {
    return { kind: 'date', convert: orNull((v) => (dateText(String(v)) === null ? String(v) : new SqlDate(String(v)))) };
  }
  if (name === 'DateTime' || name === 'DateTime64') return { kind: 'timestamptz', convert: orNull(instant) };
  if (name === 'Time' || name === 'Time64') return { kind: 'time', convert: orNull((v) => new SqlTime(timeText(String(v)))) };
  if (STRUCTURED.has(name)) return { kind: 'json', convert: orNull((v) => new JsonValue(nested(node, v))) };
  if (name === 'Nothing') return { kind: 'unknown', convert: () => null };
  return { kind: 'unknown', convert: orNull((v) => (v !== null && typeof v === 'object' ? new JsonValue(v) : (v as Value))) };
}

/**
 * An element of an array, map or tuple as plain JSON: integers that JS holds
 * exactly become numbers (ClickHouse quoted every 64-bit one), wider ones and
 * decimals stay strings, as `jsonSafe` writes them for every other driver.
 */
function nested(node: TypeNode, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const type = unwrap(node);
  const name = type.name;
  if (WIDE_INTEGERS.has(name)) {
    const n = wideInteger(value);
    return typeof n === 'bigint' ? n.toString() : n;
  }
  if (FLOATS.has(name)) {
    const n = float(value);
    return Number.isFinite(n) ? n : String(n);
  }
  if (name === 'Array' && Array.isArray(value)) return value.map((element) => nested(type.args[0] ?? ANY, element));
  if (name === 'Map' && typeof value === 'object') {
    const valueType = type.args[1] ?? ANY;
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, nested(valueType, v)]));
  }
  if (name === 'Tuple') {
    if (Array.isArray(value)) return value.map((element, i) => nested(type.args[i] ?? ANY, element));
    if (typeof value === 'object') {
      const byField = new Map(type.args.map((arg) => [arg.field, arg]));
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, nested(byField.get(k) ?? ANY, v)]));
    }
  }
  return value;
}

const ANY: TypeNode = { name: '', args: [], field: null };
