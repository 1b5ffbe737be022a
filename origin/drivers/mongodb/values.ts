import { Decimal, Instant, JsonValue, type Value, type ValueKind } from '../../values.ts';
import { integerFromBigInt, plainBytes } from '../json-values.ts';
import type { DocumentFields } from '../types.ts';

/**
 * BSON values as the value model holds them. Documents are read with
 * `useBigInt64`, so an Int64 arrives as a bigint and never passes through a JS
 * number; a Decimal128 keeps its digits; a date is an instant (rendered in the
 * server's zone like every timestamp); an ObjectId is its 24-character hex.
 * BSON classes are told apart by `_bsontype`, which every BSON library
 * version sets, so no class identity across copies of `bson` matters.
 */

type Bson = { _bsontype?: string } & Record<string, unknown>;

/** One document's top-level fields in stored order; nested documents and arrays become `JsonValue`. */
export function documentFields(document: Record<string, unknown>): DocumentFields {
  const fields: DocumentFields = [];
  for (const key of Object.keys(document)) fields.push([key, topValue(document[key])]);
  return fields;
}

/** A top-level field's value. */
export function topValue(value: unknown): Value {
  const leaf = leafValue(value);
  if (leaf !== NESTED) return leaf;
  return new JsonValue(nestedValue(value));
}

const NESTED = Symbol('nested');

/** A scalar as the value model holds it, or NESTED for a document or an array. */
function leafValue(value: unknown): Value | typeof NESTED {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return value;
    case 'bigint':
      return integerFromBigInt(value);
    case 'undefined':
      return null;
  }
  if (value === null) return null;
  if (value instanceof Date) {
    const ms = value.getTime();
    return Number.isNaN(ms) ? null : new Instant(BigInt(ms) * 1000n);
  }
  if (Array.isArray(value)) return NESTED;
  if (value instanceof RegExp) return `/${value.source}/${value.flags}`;
  if (value instanceof Uint8Array) return plainBytes(value);
  const bson = value as Bson;
  switch (bson._bsontype) {
    case 'ObjectId':
    case 'ObjectID':
      return (bson.toHexString as () => string).call(bson);
    case 'Decimal128':
      return new Decimal(String(bson));
    case 'Binary':
      return plainBytes((bson.value as () => Uint8Array).call(bson));
    case 'Long':
      return integerFromBigInt((bson.toBigInt as () => bigint).call(bson));
    case 'Int32':
    case 'Double':
      return Number((bson.valueOf as () => number).call(bson));
    case 'Timestamp':
      return NESTED;
    case 'BSONRegExp':
      return `/${String(bson.pattern)}/${String(bson.options)}`;
    case 'Code':
      return String(bson.code);
    case 'BSONSymbol':
      return String(bson.value);
    case 'MinKey':
      return '$minKey';
    case 'MaxKey':
      return '$maxKey';
    case 'DBRef':
      return NESTED;
  }
  return NESTED;
}

/**
 * A nested document or array as plain JSON-shaped data whose leaves are
 * value-model values (bigint, Decimal, Instant, bytes), which the formats
 * write exactly (`jsonNested`).
 */
function nestedValue(value: unknown): unknown {
  const leaf = leafValue(value);
  if (leaf !== NESTED) return leaf;
  if (Array.isArray(value)) return value.map(nestedValue);
  const bson = value as Bson;
  if (bson._bsontype === 'Timestamp') return { t: Number(bson.t), i: Number(bson.i) };
  if (bson._bsontype === 'DBRef') {
    return { $ref: String(bson.collection), $id: nestedValue(bson.oid), ...(bson.db ? { $db: String(bson.db) } : {}) };
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(bson)) Object.defineProperty(out, key, { value: nestedValue(bson[key]), enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * The BSON type name of a field's value (`$type` names), for the schema
 * listing and column metadata: a value as the driver reads it, or as the
 * value model holds it once read (`topValue`), which gives the same name
 * where the value model keeps the type.
 */
export function bsonTypeName(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'double';
    case 'bigint':
      return 'long';
    case 'undefined':
      return 'undefined';
  }
  if (value === null) return 'null';
  if (value instanceof Date) return 'date';
  if (Array.isArray(value)) return 'array';
  if (value instanceof RegExp) return 'regex';
  if (value instanceof Uint8Array) return 'binData';
  if (value instanceof Decimal) return 'decimal';
  if (value instanceof Instant) return 'date';
  if (value instanceof JsonValue) return Array.isArray(value.value) ? 'array' : 'object';
  switch ((value as Bson)._bsontype) {
    case 'ObjectId':
    case 'ObjectID':
      return 'objectId';
    case 'Decimal128':
      return 'decimal';
    case 'Binary':
      return 'binData';
    case 'Long':
      return 'long';
    case 'Int32':
      return 'int';
    case 'Double':
      return 'double';
    case 'Timestamp':
      return 'timestamp';
    case 'BSONRegExp':
      return 'regex';
    case 'Code':
      return 'javascript';
    case 'BSONSymbol':
      return 'symbol';
    case 'MinKey':
      return 'minKey';
    case 'MaxKey':
      return 'maxKey';
    case 'DBRef':
      return 'dbPointer';
  }
  return 'object';
}

const KINDS: Record<string, ValueKind> = {
  string: 'text',
  objectId: 'text',
  bool: 'boolean',
  int: 'integer',
  long: 'integer',
  double: 'float',
  decimal: 'decimal',
  date: 'timestamptz',
  binData: 'binary',
  object: 'json',
  array: 'json',
};

/** The value kind a BSON type name is read as; `unknown` (infer) for the rest. */
export function kindOfBsonType(type: string): ValueKind {
  return KINDS[type] ?? 'unknown';
}
