import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDriver } from '../../origin/drivers/registry.ts';
import type { ConnectionSettings, Driver, DriverEnv, RowCursor, RunRequest, SqlDriverType } from '../../origin/drivers/types.ts';
import { jsonValue } from '../../origin/formats/json-text.ts';
import { readPage } from '../../origin/services/run/window.ts';
import { inspect, plan } from '../../origin/sql/index.ts';
import type { Value } from '../../origin/values.ts';
import { GUARD_CORPUS, PROBE_TABLE, WINDOW_EXAMPLES } from '../unit/sql/corpus.ts';
import { CATALOG, setupSql } from './conformance/tables.ts';
import { UNICODE_TEXT, VALUES_TABLE, VALUE_CASES, columnName } from './conformance/values.ts';
import { documentCases } from './conformance/documents.ts';
import { DRIVER_FIXTURES, type DocumentFixture, type Scratch, type SqlFixture } from './fixtures/index.ts';
import { env, failure, readAll, request } from './helpers.ts';
import { eventually } from '../harness/eventually.ts';
import { unique } from '../harness/unique.ts';

/**
 * One suite over every driver (fixtures/index.ts): each case runs on each
 * engine through the public Driver interface, against a real database made
 * for the run. What an engine cannot do its fixture names, with why; the
 * suite shows that as a case of its own. A document database takes the
 * cases that apply to documents (conformance/documents.ts).
 */

const dir = mkdtempSync(join(tmpdir(), 'sluice-conformance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes to table data, which a read-only transaction, session or handle stops in the database itself, behind the text guard. */
const DATA_WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'REPLACE']);

const ONE_BILLION = 1_000_000_000;

const SQL_FIXTURES = DRIVER_FIXTURES.filter((f): f is SqlFixture => f.language === 'sql');
const DOCUMENT_FIXTURES = DRIVER_FIXTURES.filter((f): f is DocumentFixture => f.language === 'documents');

describe.each(DOCUMENT_FIXTURES)('$type', (fixture) => documentCases(fixture, dir));

describe.each(SQL_FIXTURES.map((f) => ({ ...f, name: f.label ?? f.type })))('$name', (fixture) => {
  const { sql: spell, differences } = fixture;
  let scratch: Scratch;
  const open: Driver[] = [];

  /** A driver on the scratch database; closed after the case (an embedded file is then free for other settings). */
  function driver(overrides: Partial<DriverEnv> = {}): Driver {
    const d = createDriver({ ...scratch.settings, type: fixture.type }, env(overrides));
    open.push(d);
    return d;
  }

  const run = (d: Driver, text: string, overrides: Partial<RunRequest> = {}) => d.run(request(text, overrides));
  const rows = async (d: Driver, text: string, overrides: Partial<RunRequest> = {}) => readAll(await run(d, text, overrides));

  /** Waits until the server shows no statement carrying `marker`, where it can show them. */
  async function expectGone(marker: string): Promise<void> {
    if (scratch.running) await eventually(async () => (await scratch.running!(marker)) === 0);
  }

  beforeAll(async () => {
    scratch = await fixture.scratch(dir);
    await scratch.exec(...setupSql(spell));
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((d) => d.close()));
  });
  afterAll(async () => {
    await scratch?.drop();
  });

  describe('values', () => {
    let cursor: RowCursor;
    let table: Value[][];
    beforeAll(async () => {
      cursor = await run(driver(), `SELECT * FROM ${VALUES_TABLE} ORDER BY id`);
      table = await readAll(cursor);
      await Promise.all(open.splice(0).map((d) => d.close()));
    });

    it('names each column as the table does, in order', () => {
      expect(cursor.columns.map((c) => c.name)).toEqual(['id', ...VALUE_CASES.map((c) => columnName(c.column))]);
      expect(table.map((row) => row[0])).toEqual([1, 2, 3]);
    });

    describe.each(VALUE_CASES.map((c, i) => ({ ...c, at: i + 1 })))('$column', ({ column, kind, cells, at }) => {
      const why = differences[column];
      if (why) {
        it(`differs: ${why}`, () => {
          // The driver claims no type the engine lacks, nor makes up its value; NULL stays NULL.
          expect(cursor.columns[at].kind).not.toBe(kind);
          expect(table[0][at]).not.toEqual(cells[0].value);
          expect(table[2][at]).toBeNull();
        });
        return;
      }

      it(`has the engine's own type, reported as ${kind}`, () => {
        expect(cursor.columns[at]).toEqual({ name: columnName(column), dbType: spell.columns[column].dbType, kind });
      });

      it('comes back exactly as the value model holds it', () => {
        expect(table.map((row) => row[at])).toEqual([cells[0].value, cells[1].value, null]);
        if (kind === 'binary') expect(table[0][at]?.constructor).toBe(Uint8Array);
      });

      it('and as JSON', () => {
        expect(table.map((row) => jsonValue(row[at]))).toEqual([cells[0].json, cells[1].json, 'null']);
      });
    });
  });

  describe('the row window and paging', () => {
    const examples = WINDOW_EXAMPLES.filter((e) => e.dialects.includes(fixture.dialect));

    it.each(examples)('$name', async ({ sql, params, pageSize, pages }) => {
      const d = driver();
      for (const expected of pages) {
        const planned = plan(sql, d.dialect, params ?? {}, { page: expected.page, pageSize });
        // Small batches, so a page spans several of them.
        const cursor = await run(d, planned.text, { values: planned.values, batchSize: 3 });
        try {
          const page = await readPage(cursor.batches, { skip: planned.skip, take: planned.take ?? 0, probe: planned.probe });
          expect({ rows: page.rows.map((row) => Number(row[0])), hasMore: page.hasMore }, `page ${expected.page}`).toEqual({
            rows: expected.rows,
            hasMore: expected.hasMore,
          });
        } finally {
          await cursor.close();
        }
      }
    });

    it('streams a large result batch by batch, no batch past batchSize', async () => {
      const cursor = await run(driver(), `SELECT i, i * 2 AS j FROM (${spell.series(200_000)}) s`, { batchSize: 5000 });
      let count = 0;
      let batches = 0;
      let last: Value[] = [];
      for await (const batch of cursor.batches) {
        expect(batch.length).toBeLessThanOrEqual(5000);
        count += batch.length;
        batches++;
        last = batch[batch.length - 1];
      }
      expect([count, batches, last]).toEqual([200_000, 40, [200_000, 400_000]]);
    });

    it('pulls on demand: a billion rows read two batches deep, then closed, the statement gone and the session kept', async () => {
      const d = driver();
      const marker = unique('pull');
      const cursor = await run(d, `${spell.series(ONE_BILLION)} /* ${marker} */`, { batchSize: 100 });
      const batches = cursor.batches[Symbol.asyncIterator]();
      expect((await batches.next()).value).toHaveLength(100);
      expect(((await batches.next()).value as Value[][])[0]).toEqual([101]);
      await cursor.close();
      await cursor.close();
      await expectGone(marker);
      expect(await rows(d, 'SELECT 1')).toEqual([[1]]);
      await eventually(() => d.idleSessions() === 1, { what: 'the session back in the pool once reset (a read answers before its reset ends)' });
    });
  });

  describe('bound parameters', () => {
    it('binds a 64-bit integer, Unicode text, NULL and a number; a name used twice is bound twice', async () => {
      const sql = `SELECT ${spell.int64(':big')} AS big, :text AS txt, :none AS absent, :n + 1 AS nxt, :text AS again`;
      const d = driver();
      const planned = plan(sql, d.dialect, { big: 9007199254740993n, text: UNICODE_TEXT, none: null, n: 41 }, null);
      expect(await rows(d, planned.text, { values: planned.values })).toEqual([[9007199254740993n, UNICODE_TEXT, null, 42, UNICODE_TEXT]]);
    });

    it("takes no marker from a string, a comment or a cast, nor the engine's own placeholders in them", async () => {
      const sql = `SELECT ':text' AS s, '?' AS q, '$1' AS d, ${spell.int64("'5'")} AS five, ${spell.int64(':n')} AS n /* :c ? $1 */ -- :d ? $1\n`;
      const d = driver();
      // A marker taken from the string or the comments would need a value: plan() would refuse.
      const planned = plan(sql, d.dialect, { n: 7 }, null);
      expect(planned.values).toEqual([7]);
      expect(await rows(d, planned.text, { values: planned.values })).toEqual([[':text', '?', '$1', 5, 7]]);
    });
  });

  describe('read-only', () => {
    const corpus = GUARD_CORPUS.filter((c) => c.dialects.includes(fixture.dialect));
    const dataWrites = corpus.filter((c) => {
      const info = inspect(c.sql, fixture.dialect);
      const explainOnly = /^EXPLAIN\b/i.test(c.sql) && !/\bANALYZE\b/i.test(c.sql);
      return !c.read && info.statementCount === 1 && info.writeOps.length > 0 && info.writeOps.every((op) => DATA_WRITES.has(op)) && !explainOnly;
    });

    it("the guard refuses every write and bypass of the corpus in the driver's dialect", () => {
      const d = driver();
      const refused = corpus.filter((c) => !c.read);
      expect(refused.length).toBeGreaterThan(10);
      for (const c of refused) expect(inspect(c.sql, d.dialect).isRead, c.sql).toBe(false);
    });

    it("the corpus's reads run on the engine, and those it says the database refuses are refused", async () => {
      const d = driver();
      for (const c of corpus.filter((c) => c.read)) {
        if (c.runs === false) expect((await failure(rows(d, c.sql))).code, c.sql).toBe('query_failed');
        else await expect(rows(d, c.sql), c.sql).resolves.toBeDefined();
      }
    });

    const noReadOnly = differences['read-only in the database'];
    if (noReadOnly) {
      it(`the database refusing writes differs: ${noReadOnly}`, async () => {
        // The engine does not pretend: a write asked to run read-only is not refused by the database;
        // it runs in the read's transaction, which the driver rolls back, so nothing stays.
        const d = driver();
        await expect(rows(d, 'INSERT INTO written VALUES (9)', { readOnly: true })).resolves.toEqual([]);
        expect(await rows(d, 'SELECT a FROM written')).toEqual([]);
      });
    } else {
      it("with writes off, the database itself refuses every data write of the corpus, and nothing changes", async () => {
        const d = driver();
        expect(dataWrites.length).toBeGreaterThanOrEqual(3);
        for (const c of dataWrites) {
          const refused = await failure(rows(d, c.sql, { readOnly: false }));
          expect(refused.code, c.sql).toBe('query_failed');
          if (/^(INSERT INTO t VALUES|UPDATE t SET|delete from t$)/.test(c.sql)) expect(refused.extras.detail, c.sql).toMatch(spell.readOnlyRefusal);
        }
        expect(await rows(d, 'SELECT a FROM t')).toEqual([[1]]);
        expect(await rows(d, 'SELECT count(*) FROM u')).toEqual([[0]]);
      });

      it('with writes off, the database itself refuses DDL, and nothing changes', async () => {
        const d = driver();
        for (const ddl of ['CREATE TABLE ro_made (i int)', 'DROP TABLE t', 'ALTER TABLE t ADD COLUMN z int', 'CREATE VIEW ro_view AS SELECT 1 AS one', 'CREATE INDEX ro_index ON t (a)']) {
          expect((await failure(rows(d, ddl, { readOnly: false }))).code, ddl).toBe('query_failed');
        }
        expect(await rows(d, 'SELECT * FROM t')).toEqual([[1]]);
        const listed = (await d.schema({ maxColumns: 5000 })).tables.map((table) => table.name);
        expect(listed.filter((name) => name.startsWith('ro_'))).toEqual([]);
      });

      it('with writes on, a read still runs read-only; a write runs and is seen', async () => {
        const d = driver({ allowWrites: true });
        const claimsRead = await failure(rows(d, 'INSERT INTO written VALUES (1)', { readOnly: true }));
        expect(claimsRead.extras.detail).toMatch(spell.readOnlyRefusal);
        const cursor = await run(d, 'INSERT INTO written VALUES (2)', { readOnly: false });
        await readAll(cursor);
        expect(await rows(d, 'SELECT a FROM written')).toEqual([[2]]);
        await rows(d, 'DELETE FROM written WHERE a = 2', { readOnly: false });
      });
    }
  });

  describe('time limit and abort', () => {
    const endless = (marker: string) => `/* ${marker} */ ${spell.endless}`;

    const noLimit = differences['time limit'];
    if (noLimit) {
      it(`the time limit differs: ${noLimit}`, async () => {
        const cursor = await run(driver(), spell.series(20_000), { timeoutMs: 1, batchSize: 1000 });
        expect(await readAll(cursor)).toHaveLength(20_000);
      });
    } else {
      it('the time limit cancels a running statement in the database; the driver runs the next one', async () => {
        const d = driver();
        const marker = unique('limit');
        const error = await failure(run(d, endless(marker), { timeoutMs: 400 }));
        expect([error.code, error.extras.timeout]).toEqual(['timeout', 0.4]);
        await expectGone(marker);
        expect(await rows(d, 'SELECT 42')).toEqual([[42]]);
      });

      it('a time limit reached mid-stream ends the stream with a timeout', async () => {
        const marker = unique('midstream');
        let batches = 0;
        const error = await failure(
          (async () => {
            const cursor = await run(driver(), `${spell.series(ONE_BILLION)} /* ${marker} */`, { batchSize: 100, timeoutMs: 2000 });
            for await (const _ of cursor.batches) batches++;
          })(),
        );
        expect(error.code).toBe('timeout');
        expect(batches).toBeGreaterThan(0);
        await expectGone(marker);
      });
    }

    it('the abort signal cancels a running statement', async () => {
      const d = driver();
      const marker = unique('abort');
      const controller = new AbortController();
      const outcome = failure(run(d, endless(marker), { signal: controller.signal }));
      if (scratch.running) await eventually(async () => (await scratch.running!(marker)) > 0);
      // With no view of the server: late enough that the statement is running even on a loaded machine.
      else await new Promise((resolve) => setTimeout(resolve, 2000));
      controller.abort();
      const error = await outcome;
      expect([error.code, error.extras.detail]).toEqual(['query_failed', 'cancelled']);
      await expectGone(marker);
      expect(await rows(d, 'SELECT 3')).toEqual([[3]]);
    });

    it('a client abort mid-stream ends the stream and drops its session; the pool serves the next statement', async () => {
      const d = driver();
      const marker = unique('stream');
      const controller = new AbortController();
      const cursor = await run(d, `${spell.series(ONE_BILLION)} /* ${marker} */`, { batchSize: 100, signal: controller.signal });
      const batches = cursor.batches[Symbol.asyncIterator]();
      expect((await batches.next()).value).toHaveLength(100);
      controller.abort();
      const error = await failure(batches.next());
      expect([error.code, error.extras.detail]).toEqual(['query_failed', 'cancelled']);
      // Not returned to the pool: a cancel may still land on whatever the session runs next.
      expect(d.idleSessions()).toBe(0);
      await cursor.close();
      await expectGone(marker);
      expect(await rows(d, 'SELECT 4')).toEqual([[4]]);
      await eventually(() => d.idleSessions() === 1, { what: 'the session back in the pool once reset (a read answers before its reset ends)' });
    });

    const noView = differences['statements on the server'];
    if (noView) {
      it(`seeing the statement gone from the server differs: ${noView}`, () => {
        expect(scratch.running).toBeUndefined();
      });
    } else {
      it('the server shows its running statements, which the cases above watch go', async () => {
        const d = driver();
        const marker = unique('seen');
        const controller = new AbortController();
        const outcome = failure(run(d, endless(marker), { signal: controller.signal }));
        await eventually(async () => (await scratch.running!(marker)) === 1);
        controller.abort();
        await outcome;
        await expectGone(marker);
      });
    }
  });

  describe('sessions', () => {
    it('the pool keeps at most poolSize idle sessions and closes them after the idle timeout', async () => {
      const d = driver({ poolSize: 2, poolIdleTimeoutMs: 300 });
      const cursors = await Promise.all([1, 2, 3].map(() => run(d, spell.series(5000), { batchSize: 10 })));
      expect(d.idleSessions()).toBe(0);
      await Promise.all(cursors.map((c) => c.close()));
      await eventually(() => d.idleSessions() === 2, { what: 'the session back in the pool once reset (a read answers before its reset ends)' });
      await eventually(() => d.idleSessions() === 0, { timeoutMs: 3000 });
    });

    it('poolSize 0 opens a session per statement and closes it after', async () => {
      const d = driver({ poolSize: 0 });
      expect(await rows(d, 'SELECT 1')).toEqual([[1]]);
      expect(d.idleSessions()).toBe(0);
    });

    it("a rejected statement reports the database's message and leaves the session usable", async () => {
      const d = driver();
      const error = await failure(run(d, 'SELECT * FROM no_such_table_here'));
      expect([error.code, error.message]).toEqual(['query_failed', 'The database rejected the query']);
      expect(error.extras.detail).toContain('no_such_table_here');
      expect(d.idleSessions()).toBe(1);
      expect(await rows(d, 'SELECT 2')).toEqual([[2]]);
    });

    it('an unreachable database: query_failed on run, connection_failed on test and databases', async () => {
      const d = createDriver({ ...fixture.unreachable(dir), type: fixture.type }, env());
      open.push(d);
      const error = await failure(run(d, 'SELECT 1'));
      expect([error.code, error.message]).toEqual(['query_failed', 'The database could not be reached']);
      expect((await failure(d.test())).code).toBe('connection_failed');
      expect((await failure(d.databases())).code).toBe('connection_failed');
    });
  });

  const alias = fixture.alias;
  if (alias) {
    describe(`the ${alias.type} type`, () => {
      /** What a driver of `settings` reads and lists on the scratch database; closed after, so an embedded file is free for the next. */
      async function seen(settings: ConnectionSettings, type: SqlDriverType) {
        const d = createDriver({ ...settings, type }, env());
        try {
          const cursor = await run(d, `SELECT * FROM ${VALUES_TABLE} ORDER BY id`);
          const rows = await readAll(cursor);
          return { type: d.type, columns: cursor.columns, rows, listing: await d.schema({ maxColumns: 5000 }), databases: await d.databases(), ddl: await d.tableDdl('wide') };
        } finally {
          await d.close();
        }
      }

      it(`reads, describes and lists the same database as ${fixture.type} with less said`, async () => {
        const own = await seen(scratch.settings, fixture.type);
        const aliased = await seen(alias.settings(scratch), alias.type);
        expect(aliased).toEqual({ ...own, type: alias.type });
      });

      it('an unreachable database: query_failed on run, connection_failed on test and databases', async () => {
        const d = createDriver({ ...alias.unreachable(dir), type: alias.type }, env());
        open.push(d);
        const error = await failure(run(d, 'SELECT 1'));
        expect([error.code, error.message]).toEqual(['query_failed', 'The database could not be reached']);
        expect((await failure(d.test())).code).toBe('connection_failed');
        expect((await failure(d.databases())).code).toBe('connection_failed');
      });
    });
  }

  describe('catalog', () => {
    const total = (listing: { tables: { columns: unknown[] }[] }) => listing.tables.reduce((n, t) => n + t.columns.length, 0);

    it('lists every table and view with its columns', async () => {
      const listing = await driver().schema({ maxColumns: 5000 });
      expect(listing.truncated).toBe(false);
      expect(listing.tables.map((t) => ({ name: t.name, type: t.type }))).toEqual(CATALOG);
      const table = (name: string) => listing.tables.find((t) => t.name === name);
      expect(table('wide')?.columns).toEqual([
        { name: 'a', type: spell.listed.int, nullable: false, position: 1 },
        { name: 'b', type: spell.listed.text, nullable: true, position: 2 },
        { name: 'c', type: spell.listed.decimal, nullable: true, position: 3 },
      ]);
      expect(table('narrow')?.columns).toEqual([{ name: 'z', type: spell.listed.int, nullable: true, position: 1 }]);
      expect(table('v')?.columns.map((c) => [c.name, c.type, c.position])).toEqual([['a', spell.listed.int, 1]]);
      expect(table(PROBE_TABLE)?.columns.map((c) => c.name)).toEqual(['id', 'name']);
    });

    it('stops at maxColumns and says it was truncated', async () => {
      const d = driver();
      const whole = await d.schema({ maxColumns: 5000 });
      expect((await d.schema({ maxColumns: total(whole) })).truncated).toBe(false);
      const cut = await d.schema({ maxColumns: 3 });
      expect(cut.truncated).toBe(true);
      expect(total(cut)).toBe(3);
      expect(cut.tables.map((t) => t.name)).toEqual(whole.tables.slice(0, cut.tables.length).map((t) => t.name));
    });

    it('lists the same when asked for the database by the name databases() gives it', async () => {
      const d = driver();
      expect(await d.databases()).toContain(scratch.database);
      expect(await d.schema({ database: scratch.database, maxColumns: 5000 })).toEqual(await d.schema({ maxColumns: 5000 }));
    });

    it('gives DDL for a table, not_found for a missing one; test() opens a session', async () => {
      const d = driver();
      expect(await d.tableDdl('wide')).toMatch(/^CREATE TABLE\b.*\bwide\b/i);
      expect((await failure(d.tableDdl('no_such_table'))).code).toBe('not_found');
      await expect(d.test()).resolves.toBeUndefined();
    });
  });
});
