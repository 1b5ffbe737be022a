import { Binary, Decimal128, Double, Int32, Long, ObjectId, Timestamp } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { bsonTypeName, topValue } from '../../../origin/drivers/mongodb/values.ts';

/**
 * One `bsonTypeName` names a field's type in the catalog (values as the
 * driver reads them) and in a find's columns (values as the value model holds
 * them): where the value model keeps the type, both name it alike.
 */

const KEPT: [unknown, string][] = [
  ['text', 'string'],
  [true, 'bool'],
  [7, 'int'],
  [new Int32(7), 'int'],
  [0.25, 'double'],
  [new Double(0.25), 'double'],
  [9007199254740993n, 'long'],
  [Decimal128.fromString('1.50'), 'decimal'],
  [new Date(0), 'date'],
  [new Binary(Buffer.from('00ff', 'hex')), 'binData'],
  [Buffer.from('00ff', 'hex'), 'binData'],
  [[1, 'two'], 'array'],
  [{ a: 1 }, 'object'],
];

describe('bsonTypeName', () => {
  it.each(KEPT)('%s is %s, read or held', (value, name) => {
    expect(bsonTypeName(value)).toBe(name);
    expect(bsonTypeName(topValue(value))).toBe(name);
  });

  it('names what the value model does not keep as the driver reads it', () => {
    expect(bsonTypeName(new ObjectId('65a1b2c3d4e5f60718293a4b'))).toBe('objectId');
    expect(bsonTypeName(new Timestamp({ t: 1, i: 2 }))).toBe('timestamp');
    expect(bsonTypeName(Long.fromString('9007199254740993'))).toBe('long');
    expect(bsonTypeName(/a/i)).toBe('regex');
    expect(bsonTypeName(null)).toBe('null');
  });
});
