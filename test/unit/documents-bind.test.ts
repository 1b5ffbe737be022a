import { describe, expect, it } from 'vitest';
import { bindMarkers, bindableProblem, documentMarkers, refusedOperators } from '../../origin/services/documents/bind.ts';
import { checkDocumentParts, projectedFields } from '../../origin/services/documents/query.ts';
import { parseMongoUri, uriWithoutPassword } from '../../origin/drivers/mongodb/client.ts';

const NAMES = { collection: 'collection', filter: 'filter', projection: 'projection', sort: 'sort' };

describe('document query parameters', () => {
  it('finds ":name" strings as values only, in order of first use', () => {
    expect(documentMarkers({ ':key': 1, a: ':x', b: { $in: [':y', ':x'] }, c: 'x :z', d: '::w', e: ':1a' })).toEqual(['x', 'y']);
  });

  it('binds values in place, never keys, and as $literal inside $expr', () => {
    const filter = { ':a': ':a', year: { $gte: ':a' }, $expr: { $eq: ['$title', ':t'] }, list: [':t'] };
    expect(bindMarkers(filter, { a: 1990, t: '$password' })).toEqual({
      ':a': 1990,
      year: { $gte: 1990 },
      $expr: { $eq: ['$title', { $literal: '$password' }] },
      list: ['$password'],
    });
  });

  it('keeps a __proto__ key an own field, and binds nothing undeclared', () => {
    const bound = bindMarkers(JSON.parse('{"__proto__": {"x": ":a"}, "b": ":missing"}'), { a: 1 }) as Record<string, unknown>;
    expect(Object.keys(bound)).toEqual(['__proto__', 'b']);
    expect(Object.getPrototypeOf(bound)).toBe(Object.prototype);
    expect(bound.b).toBe(':missing');
  });

  it('takes single values and arrays of them, never an object', () => {
    for (const value of ['x', 1, 9007199254740993n, true, null, ['a', 2]]) expect(bindableProblem(value)).toBeNull();
    for (const value of [{ $gt: '' }, [{ $ne: null }], {}, [[1]]]) expect(bindableProblem(value)).not.toBeNull();
  });

  it('finds refused operators at any depth', () => {
    expect(refusedOperators({ $and: [{ a: 1 }, { $or: [{ $where: 'x' }] }], b: { $expr: { $function: {} } } })).toEqual(['$where', '$function']);
    expect(refusedOperators({ $where: 1, x: { $lookup: {}, y: [{ $unionWith: 'c' }, { $out: 'o' }, { $merge: 'm' }, { $accumulator: {} }] } })).toHaveLength(6);
    expect(refusedOperators({ where: '$where', a: ['$lookup'] })).toEqual([]);
  });
});

describe('document query parts', () => {
  it('lists every problem at once', () => {
    const { problems, checked } = checkDocumentParts({ collection: 'system.users', filter: [], projection: { a: ':p' }, sort: { $where: 1 } }, NAMES);
    expect(checked).toBeNull();
    expect(Object.keys(problems).sort()).toEqual(['collection', 'filter', 'projection', 'sort']);
    expect(checkDocumentParts({ collection: undefined, filter: null, projection: undefined, sort: undefined }, NAMES).problems).toEqual({ collection: 'is required' });
  });

  it('names the projected top-level fields, _id first unless excluded', () => {
    expect(projectedFields({ b: 1, 'a.x': 1, 'a.y': 1 })).toEqual(['_id', 'b', 'a']);
    expect(projectedFields({ _id: 0, b: true })).toEqual(['b']);
    expect(projectedFields({ secret: 0 })).toEqual([]);
    expect(projectedFields(null)).toEqual([]);
  });
});

describe('MongoDB URIs', () => {
  it('parses several hosts, user and password, and writes the URI back without the password', () => {
    const parsed = parseMongoUri('mongodb://us%40er:p%3Ass@h1:1,h2:2/shop?replicaSet=rs0')!;
    expect(parsed).toEqual({ scheme: 'mongodb', user: 'us@er', password: 'p:ss', hosts: 'h1:1,h2:2', database: 'shop', query: 'replicaSet=rs0' });
    expect(uriWithoutPassword(parsed)).toBe('mongodb://us%40er@h1:1,h2:2/shop?replicaSet=rs0');
    expect(uriWithoutPassword(parsed, '********')).toBe('mongodb://us%40er:********@h1:1,h2:2/shop?replicaSet=rs0');
    expect(uriWithoutPassword(parseMongoUri('mongodb+srv://cluster.example.net/?tls=true')!)).toBe('mongodb+srv://cluster.example.net/?tls=true');
    expect(parseMongoUri('postgres://x@y/z')).toBeNull();
  });
});
