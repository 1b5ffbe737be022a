import { Binary, Decimal128, Long, ObjectId } from 'mongodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDriver } from '../../../origin/drivers/registry.ts';
import { type DocumentDriver, type DocumentFields, type DocumentQuery, type DocumentRequest, type DriverEnv, runsSql } from '../../../origin/drivers/types.ts';
import { jsonValue } from '../../../origin/formats/json-text.ts';
import { formatInstantMicros } from '../../../origin/time.ts';
import { Decimal, Instant, JsonValue, type Value } from '../../../origin/values.ts';
import type { DocumentFixture, DocumentScratch } from '../fixtures/fixture.ts';
import { env, failure } from '../helpers.ts';
import { UNICODE_TEXT } from './values.ts';
import { eventually } from '../../harness/eventually.ts';
import { unique } from '../../harness/unique.ts';

/**
 * The conformance cases that apply to a document database, through
 * `DocumentDriver.find`: values (each BSON type as the value model holds it,
 * and its JSON), the row window (skip, limit, sort) and batches pulled on
 * demand, the time limit and the client's abort (the server's cursor closed),
 * the catalog and the connection test. The SQL-only cases are shown as what
 * the fixture says they are.
 */

const INSTANT_MS = 1704164645123; // 2024-01-02T03:04:05.123Z
const OID = '65a1b2c3d4e5f60718293a4b';

const VALUE_DOCUMENTS = [
  {
    _id: new ObjectId(OID),
    n: 1,
    int64: Long.fromString('9007199254740993'),
    decimal: Decimal128.fromString('1234567890123456.789012345678901234'),
    text: UNICODE_TEXT,
    at: new Date(INSTANT_MS),
    binary: new Binary(Buffer.from('deadbeef00ff', 'hex')),
    nested: { big: Long.fromString('-9007199254740993'), list: [1, 'two', { d: Decimal128.fromString('0.10') }] },
    flag: true,
    ratio: 0.25,
  },
  { n: 2, int64: Long.fromNumber(-9007199254740991), decimal: Decimal128.fromString('-0.000000000000000001'), text: '', at: new Date(0), binary: new Binary(Buffer.alloc(0)), nested: [], flag: false, ratio: -1.5 },
  { n: 3, int64: null, decimal: null, text: null, at: null, binary: null, nested: null, flag: null, ratio: null },
];

const field = (document: DocumentFields, name: string): Value | undefined => document.find(([key]) => key === name)?.[1];

export function documentCases(fixture: DocumentFixture, _dir: string): void {
  let scratch: DocumentScratch;
  const open: DocumentDriver[] = [];
  const driver = (overrides: Partial<DriverEnv> = {}): DocumentDriver => {
    const d = createDriver(scratch.settings, env(overrides)) as DocumentDriver;
    open.push(d);
    return d;
  };
  const request = (query: Partial<DocumentQuery> & { collection: string }, overrides: Partial<DocumentRequest> = {}): DocumentRequest => ({
    query: { filter: {}, projection: null, sort: null, skip: 0, limit: 0, ...query },
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    batchSize: 1000,
    ...overrides,
  });
  const all = async (d: DocumentDriver, req: DocumentRequest) => {
    const cursor = await d.find(req);
    const documents: DocumentFields[] = [];
    for await (const batch of cursor.batches) documents.push(...batch);
    await cursor.close();
    return documents;
  };
  const series = (n: number) => Array.from({ length: n }, (_, i) => ({ i: i + 1 }));

  beforeAll(async () => {
    scratch = await fixture.scratch(_dir);
    await scratch.insert('conformance_values', VALUE_DOCUMENTS);
    await scratch.insert('series', series(20_000));
    await scratch.insert('wide', [{ a: 1, b: 'x', c: Decimal128.fromString('1.50') }, { a: 2, c: null }]);
    await scratch.insert('narrow', [{ z: 1 }]);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((d) => d.close()));
  });
  afterAll(async () => {
    await scratch?.drop();
  });

  it(`the SQL-only cases differ: ${fixture.sqlOnly}`, () => {
    const d = driver();
    expect(runsSql(d)).toBe(false);
    expect('run' in d).toBe(false);
  });

  describe('values', () => {
    let documents: DocumentFields[];
    beforeAll(async () => {
      documents = await all(driver(), request({ collection: 'conformance_values', sort: { n: 1 } }));
    });

    it('an ObjectId is its hex; Int64 and Decimal128 exact; text as stored; a date an instant; binary bytes; nested as JSON', () => {
      const [first] = documents;
      expect(field(first, '_id')).toBe(OID);
      expect(field(first, 'int64')).toBe(9007199254740993n);
      expect(field(first, 'decimal')).toEqual(new Decimal('1234567890123456.789012345678901234'));
      expect(field(first, 'text')).toBe(UNICODE_TEXT);
      expect(field(first, 'at')).toEqual(new Instant(BigInt(INSTANT_MS) * 1000n));
      expect(field(first, 'binary')).toEqual(new Uint8Array([0xde, 0xad, 0xbe, 0xef, 0x00, 0xff]));
      expect(field(first, 'binary')?.constructor).toBe(Uint8Array);
      expect(field(first, 'nested')).toBeInstanceOf(JsonValue);
      expect([field(first, 'flag'), field(first, 'ratio')]).toEqual([true, 0.25]);
    });

    it('and as JSON', () => {
      const [first, second, third] = documents;
      const json = (document: DocumentFields, name: string) => jsonValue(field(document, name) ?? null);
      expect(json(first, 'int64')).toBe('9007199254740993');
      expect(json(second, 'int64')).toBe('-9007199254740991');
      expect(json(first, 'decimal')).toBe('1234567890123456.789012345678901234');
      expect(json(second, 'decimal')).toBe('-1E-18');
      expect(json(first, 'at')).toBe(`"${formatInstantMicros(BigInt(INSTANT_MS) * 1000n)}"`);
      expect(json(first, 'binary')).toBe('"3q2+7wD/"');
      expect(json(second, 'binary')).toBe('""');
      expect(json(first, 'nested')).toBe('{"big":-9007199254740993,"list":[1,"two",{"d":0.10}]}');
      expect(json(second, 'nested')).toBe('[]');
      for (const name of ['int64', 'decimal', 'text', 'at', 'binary', 'nested', 'flag', 'ratio']) expect(field(third, name), name).toBeNull();
    });
  });

  describe('the row window and paging', () => {
    it('honours filter, sort, skip and limit, batch by batch, no batch past batchSize', async () => {
      const cursor = await driver().find(request({ collection: 'series', filter: { i: { $gt: 100 } }, sort: { i: -1 }, skip: 10, limit: 25 }, { batchSize: 3 }));
      const seen: number[] = [];
      for await (const batch of cursor.batches) {
        expect(batch.length).toBeLessThanOrEqual(3);
        seen.push(...batch.map((d) => Number(field(d, 'i'))));
      }
      expect(seen).toEqual(Array.from({ length: 25 }, (_, k) => 19_990 - k));
    });

    it('streams a large result batch by batch', async () => {
      const cursor = await driver().find(request({ collection: 'series', sort: { i: 1 } }, { batchSize: 5000 }));
      let count = 0;
      let batches = 0;
      for await (const batch of cursor.batches) {
        expect(batch.length).toBeLessThanOrEqual(5000);
        count += batch.length;
        batches++;
      }
      expect([count, batches]).toEqual([20_000, 4]);
    });

    it('pulls on demand: read two batches deep, then closed, the server cursor closed and the driver reusable', async () => {
      const d = driver();
      const cursor = await d.find(request({ collection: 'series', sort: { i: 1 } }, { batchSize: 100 }));
      const batches = cursor.batches[Symbol.asyncIterator]();
      expect((await batches.next()).value).toHaveLength(100);
      expect(field(((await batches.next()).value as DocumentFields[])[0], 'i')).toBe(101);
      expect(scratch.openCursors('series')).toBe(1);
      await cursor.close();
      await cursor.close();
      await eventually(() => scratch.openCursors('series') === 0);
      expect(await all(d, request({ collection: 'narrow' }))).toHaveLength(1);
    });
  });

  describe('time limit and abort', () => {
    const endless = () => unique(fixture.endless);

    it(`the time limit is sent to the server and cancels the read on this side: ${fixture.differences['server time limit'] ?? 'the server enforces it too'}`, async () => {
      const d = driver();
      const collection = endless();
      const error = await failure(d.find(request({ collection }, { timeoutMs: 400 })));
      expect([error.code, error.extras.timeout]).toEqual(['timeout', 0.4]);
      expect(scratch.sentMaxTime(collection)).toBe(400);
      expect(await all(d, request({ collection: 'narrow' }))).toHaveLength(1);
    });

    it('a time limit reached mid-stream ends the stream with a timeout and closes the server cursor', async () => {
      let batches = 0;
      const error = await failure(
        (async () => {
          const cursor = await driver().find(request({ collection: 'series' }, { batchSize: 100, timeoutMs: 1500 }));
          for await (const _ of cursor.batches) {
            batches++;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        })(),
      );
      expect(error.code).toBe('timeout');
      expect(batches).toBeGreaterThan(0);
      await eventually(() => scratch.openCursors('series') === 0);
    });

    it('the abort signal cancels a running read', async () => {
      const d = driver();
      const controller = new AbortController();
      const outcome = failure(d.find(request({ collection: endless() }, { signal: controller.signal })));
      await new Promise((resolve) => setTimeout(resolve, 500));
      controller.abort();
      const error = await outcome;
      expect([error.code, error.extras.detail]).toEqual(['query_failed', 'cancelled']);
      expect(await all(d, request({ collection: 'narrow' }))).toHaveLength(1);
    });

    it('a client abort mid-stream ends the stream and closes the server cursor', async () => {
      const d = driver();
      const controller = new AbortController();
      const cursor = await d.find(request({ collection: 'series' }, { batchSize: 100, signal: controller.signal }));
      const batches = cursor.batches[Symbol.asyncIterator]();
      expect((await batches.next()).value).toHaveLength(100);
      controller.abort();
      const error = await failure(batches.next());
      expect([error.code, error.extras.detail]).toEqual(['query_failed', 'cancelled']);
      await cursor.close();
      await eventually(() => scratch.openCursors('series') === 0);
      expect(await all(d, request({ collection: 'narrow' }))).toHaveLength(1);
    });

    const noView = fixture.differences['statements on the server'];
    if (noView) {
      it(`seeing the statement gone from the server differs: ${noView}`, () => {
        expect(scratch.openCursors('')).toBe(0);
      });
    }
  });

  describe('catalog and test', () => {
    const total = (listing: { tables: { columns: unknown[] }[] }) => listing.tables.reduce((n, t) => n + t.columns.length, 0);

    it('lists collections as tables, fields sampled from their documents with BSON types', async () => {
      const listing = await driver().schema({ maxColumns: 5000 });
      expect(listing.truncated).toBe(false);
      expect(listing.tables.map((t) => t.name)).toEqual(['conformance_values', 'narrow', 'series', 'wide']);
      const wide = listing.tables.find((t) => t.name === 'wide')!;
      expect(wide.type).toBe('collection');
      const columns = Object.fromEntries(wide.columns.map((c) => [c.name, { type: c.type, nullable: c.nullable }]));
      expect(columns).toMatchObject({
        a: { type: fixture.listed.int, nullable: false },
        b: { type: fixture.listed.text, nullable: true },
        c: { type: fixture.listed.decimal, nullable: true },
      });
      expect(listing.tables.find((t) => t.name === 'narrow')!.columns.map((c) => c.name).sort()).toEqual(['_id', 'z']);
    });

    it('stops at maxColumns and says it was truncated', async () => {
      const d = driver();
      const whole = await d.schema({ maxColumns: 5000 });
      expect((await d.schema({ maxColumns: total(whole) })).truncated).toBe(false);
      const cut = await d.schema({ maxColumns: 3 });
      expect([cut.truncated, total(cut)]).toEqual([true, 3]);
    });

    it('lists the same when asked for the database by the name databases() gives it', async () => {
      const d = driver();
      expect(await d.databases()).toContain(scratch.database);
      expect(await d.schema({ database: scratch.database, maxColumns: 5000 })).toEqual(await d.schema({ maxColumns: 5000 }));
    });

    it('gives a collection its creation text, not_found for a missing one; test() answers', async () => {
      const d = driver();
      expect(await d.tableDdl('wide')).toMatch(/^db\.createCollection\("wide"/);
      expect((await failure(d.tableDdl('no_such_collection'))).code).toBe('not_found');
      await expect(d.test()).resolves.toBeUndefined();
    });

    it('an unreachable server: query_failed on find, connection_failed on test and databases', async () => {
      const d = createDriver(fixture.unreachable(_dir), env()) as DocumentDriver;
      open.push(d);
      const error = await failure(d.find(request({ collection: 'x' })));
      expect([error.code, error.message]).toEqual(['query_failed', 'The database could not be reached']);
      expect((await failure(d.test())).code).toBe('connection_failed');
      expect((await failure(d.databases())).code).toBe('connection_failed');
    });
  });
}
