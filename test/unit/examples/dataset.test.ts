import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExampleDataset } from '../../../origin/examples/build-dataset.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const tsx = join(root, 'node_modules/.bin/tsx');
const script = join(root, 'origin/examples/build-dataset-cli.ts');

const expectedCounts: Record<string, number> = {
  customers: 30,
  directors: 12,
  film_genres: 60,
  films: 40,
  genres: 9,
  rentals: 2500,
};
const tables = Object.keys(expectedCounts);

interface Opened {
  instance: DuckDBInstance;
  db: DuckDBConnection;
}

async function openReadOnly(file: string): Promise<Opened> {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  return { instance, db: await instance.connect() };
}

function close(opened: Opened | undefined) {
  opened?.db.closeSync();
  opened?.instance.closeSync();
}

async function rows(db: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await db.runAndReadAll(sql)).getRowObjectsJS();
}

async function one<T = unknown>(db: DuckDBConnection, sql: string): Promise<T> {
  const [row] = (await db.runAndReadAll(sql)).getRowsJS();
  return row[0] as T;
}

/** Row count and an order-independent digest of every row's text, per table; plus the schema with its comments. */
async function fingerprint(db: DuckDBConnection) {
  const digests: Record<string, unknown> = {};
  for (const table of tables) {
    digests[table] = await rows(
      db,
      `SELECT count(*) AS n, md5(string_agg(h, '' ORDER BY h)) AS digest
       FROM (SELECT md5(CAST(t AS VARCHAR)) AS h FROM ${table} AS t)`,
    );
  }
  const schema = await rows(
    db,
    `SELECT c.table_name, c.column_index, c.column_name, c.data_type, c.is_nullable, c.comment, t.comment AS table_comment
     FROM duckdb_columns() AS c JOIN duckdb_tables() AS t USING (database_name, schema_name, table_name)
     WHERE c.database_name = current_database()
     ORDER BY c.table_name, c.column_index`,
  );
  return { digests, schema };
}

describe('bundled example dataset', () => {
  let dirA: string;
  let dirB: string;
  let fileA: string;
  let fileB: string;
  let a: Opened | undefined;
  let b: Opened | undefined;

  beforeAll(async () => {
    dirA = await mkdtemp(join(tmpdir(), 'sluice-examples-a-'));
    dirB = await mkdtemp(join(tmpdir(), 'sluice-examples-b-'));
    fileA = join(dirA, 'examples.duckdb');
    fileB = join(dirB, 'examples.duckdb');
    // Built in this process, then through the CLI under a half-hour time zone:
    // zoned values must not depend on the builder's zone.
    await buildExampleDataset(fileA);
    await promisify(execFile)(tsx, [script, fileB], { cwd: root, env: { ...process.env, TZ: 'America/St_Johns' } });
    a = await openReadOnly(fileA);
    b = await openReadOnly(fileB);
  });

  afterAll(async () => {
    close(a);
    close(b);
    await rm(dirA, { recursive: true, force: true });
    await rm(dirB, { recursive: true, force: true });
  });

  it('builds the same rows, schema and comments every time', async () => {
    const first = await fingerprint(a!.db);
    const second = await fingerprint(b!.db);
    expect(second).toEqual(first);
    expect(first.schema.length).toBeGreaterThan(30);
  });

  it('leaves no temporary or log file beside the database', () => {
    for (const file of [fileA, fileB]) {
      expect(existsSync(file)).toBe(true);
      expect(existsSync(`${file}.tmp`)).toBe(false);
      expect(existsSync(`${file}.wal`)).toBe(false);
      expect(existsSync(`${file}.tmp.wal`)).toBe(false);
    }
  });

  it('has the tables with their row counts', async () => {
    const found = await rows(a!.db, `SELECT table_name, estimated_size FROM duckdb_tables() ORDER BY table_name`);
    expect(found.map((r) => r.table_name)).toEqual(tables);
    for (const table of tables) {
      expect(Number(await one<bigint>(a!.db, `SELECT count(*) FROM ${table}`)), table).toBe(expectedCounts[table]);
    }
  });

  it('joins through every foreign key', async () => {
    const joined = await one<bigint>(
      a!.db,
      `SELECT count(*) FROM rentals r
       JOIN customers c ON c.id = r.customer_id
       JOIN films f ON f.id = r.film_id
       JOIN directors d ON d.id = f.director_id`,
    );
    expect(joined).toBe(2500n);
    const linked = await one<bigint>(
      a!.db,
      `SELECT count(*) FROM film_genres fg JOIN films f ON f.id = fg.film_id JOIN genres g ON g.id = fg.genre_id`,
    );
    expect(linked).toBe(60n);
    // The empty sides of a LEFT JOIN: a genre without films, a customer without rentals, an unrented film.
    expect(await one(a!.db, `SELECT g.name FROM genres g LEFT JOIN film_genres fg ON fg.genre_id = g.id WHERE fg.film_id IS NULL`)).toBe('Western');
    expect(await one(a!.db, `SELECT c.id FROM customers c LEFT JOIN rentals r ON r.customer_id = c.id WHERE r.id IS NULL`)).toBe(30);
    expect(await one(a!.db, `SELECT f.title FROM films f LEFT JOIN rentals r ON r.film_id = f.id WHERE r.id IS NULL`)).toBe('Untitled Heist Project');
  });

  it('keeps rentals consistent with customers and films', async () => {
    const [row] = await rows(
      a!.db,
      `SELECT
         count(*) FILTER (WHERE to_timestamp(epoch(r.rented_at)) < c.signed_up_at) AS before_signup,
         count(*) FILTER (WHERE r.rented_at < f.release_date) AS before_release,
         count(*) FILTER (WHERE r.returned_at IS NOT NULL AND r.returned_at < to_timestamp(epoch(r.rented_at))) AS back_before_out,
         count(*) FILTER (WHERE r.amount <> f.price) AS wrong_amount,
         count(*) FILTER (WHERE (r.returned_at IS NULL) <> (r.late_fee IS NULL)) AS fee_mismatch
       FROM rentals r JOIN customers c ON c.id = r.customer_id JOIN films f ON f.id = r.film_id`,
    );
    expect(row).toEqual({ before_signup: 0n, before_release: 0n, back_before_out: 0n, wrong_amount: 0n, fee_mismatch: 0n });
    expect(await one(a!.db, `SELECT count(*) FROM rentals WHERE returned_at IS NULL`)).toBe(55n);
  });

  it('uses the column types clients must handle', async () => {
    const types = await rows(
      a!.db,
      `SELECT table_name || '.' || column_name AS col, data_type FROM duckdb_columns()
       WHERE table_name || '.' || column_name IN
         ('films.release_date', 'films.price', 'films.views', 'rentals.rented_at', 'rentals.returned_at', 'customers.active')
       ORDER BY col`,
    );
    expect(Object.fromEntries(types.map((t) => [t.col, t.data_type]))).toEqual({
      'customers.active': 'BOOLEAN',
      'films.price': 'DECIMAL(6,2)',
      'films.release_date': 'DATE',
      'films.views': 'BIGINT',
      'rentals.rented_at': 'TIMESTAMP',
      'rentals.returned_at': 'TIMESTAMP WITH TIME ZONE',
    });
  });

  it('holds integers past 2^53, exact decimals and old dates', async () => {
    const big = await rows(a!.db, `SELECT title, views FROM films WHERE views > 9007199254740992 ORDER BY views`);
    expect(big).toEqual([
      { title: '🍿 Midnight Snack', views: 9007199254740993n },
      { title: 'Seoul Station 서울역', views: 18014398509481985n },
    ]);
    expect(Number(9007199254740993n)).toBe(9007199254740992); // why it matters: a double loses the last digit
    expect(await one(a!.db, `SELECT CAST(price AS VARCHAR) FROM films WHERE id = 20`)).toBe('129.99');
    expect(await one(a!.db, `SELECT CAST(sum(price) AS VARCHAR) FROM films`)).toMatch(/^\d+\.\d{2}$/);
    expect(await one(a!.db, `SELECT CAST(min(release_date) AS VARCHAR) FROM films`)).toBe('1902-09-01');
  });

  it('holds zoned instants from several offsets, with microseconds', async () => {
    const utc = await rows(
      a!.db,
      `SELECT id, CAST(epoch_us(signed_up_at) AS BIGINT) AS us FROM customers WHERE id IN (7, 23, 24) ORDER BY id`,
    );
    expect(utc).toEqual([
      { id: 7, us: BigInt(Date.UTC(2023, 3, 2, 9, 11, 11)) * 1000n + 123456n },
      { id: 23, us: BigInt(Date.UTC(2024, 0, 1, 0, 0, 0)) * 1000n },
      { id: 24, us: BigInt(Date.UTC(2023, 0, 15, 5, 0, 0)) * 1000n },
    ]);
    const [first] = await rows(
      a!.db,
      `SELECT CAST(rented_at AS VARCHAR) AS rented_at, CAST(epoch_us(returned_at) AS BIGINT) AS returned_us FROM rentals WHERE id = 1`,
    );
    expect(first).toEqual({ rented_at: '2024-01-01 12:11:59', returned_us: BigInt(Date.UTC(2024, 0, 2, 13, 20, 18)) * 1000n });
  });

  it('holds NULLs next to empty strings', async () => {
    const [row] = await rows(
      a!.db,
      `SELECT
         (SELECT count(*) FROM films WHERE release_date IS NULL) AS unreleased,
         (SELECT count(*) FROM films WHERE description IS NULL) AS no_description,
         (SELECT count(*) FROM films WHERE description = '') AS empty_description,
         (SELECT count(*) FROM films WHERE rating IS NULL) AS unrated,
         (SELECT count(*) FROM customers WHERE email IS NULL) AS no_email,
         (SELECT count(*) FROM customers WHERE email = '') AS empty_email,
         (SELECT count(*) FROM directors WHERE country IS NULL) AS no_country`,
    );
    expect(row).toEqual({
      unreleased: 1n,
      no_description: 1n,
      empty_description: 1n,
      unrated: 2n,
      no_email: 2n,
      empty_email: 1n,
      no_country: 1n,
    });
  });

  it('holds quotes, commas, tabs, newlines and unicode', async () => {
    const text = async (sql: string) => (await rows(a!.db, sql)).map((r) => Object.values(r)[0] as string);
    const titles = await text(`SELECT title FROM films ORDER BY id`);
    const descriptions = await text(`SELECT description FROM films WHERE description IS NOT NULL ORDER BY id`);
    const names = await text(`SELECT name FROM directors ORDER BY id`);

    expect(titles).toContain('Café de l\'Été'); // accents and a single quote
    expect(titles).toContain('The "Perfect" Alibi'); // double quotes
    expect(titles).toContain('Don\'t Look Back, Darling'); // single quote and comma
    expect(titles).toContain('東京の夜'); // CJK
    expect(titles).toContain('Seoul Station 서울역'); // Hangul
    expect(titles).toContain('ليلة القمر'); // right-to-left
    expect(titles).toContain('🍿 Midnight Snack'); // emoji outside the BMP
    expect(names).toContain('Zoë O\'Connor');
    expect(names).toContain('山田 花子');

    expect(descriptions).toContain('Dear Marta,\nThe winter was long and the letters were short.\nYours, J.');
    expect(descriptions).toContain('Columns\tseparated\tby\ttabs; a romance between two programmers.');
    expect(descriptions).toContain('She said "I was home all night", and the parrot said otherwise.');
    expect(descriptions.some((d) => d.includes('🍕🎬👻'))).toBe(true);
    expect(await one(a!.db, `SELECT email FROM customers WHERE id = 2`)).toBe('bob.o\'brien@example.com');
    expect(await one(a!.db, `SELECT last_name FROM customers WHERE id = 7`)).toBe('Żółć');
  });

  it('describes every table and column with a comment', async () => {
    const tablesWithout = await rows(a!.db, `SELECT table_name FROM duckdb_tables() WHERE comment IS NULL OR comment = ''`);
    const columnsWithout = await rows(
      a!.db,
      `SELECT table_name, column_name FROM duckdb_columns()
       WHERE database_name = current_database() AND (comment IS NULL OR comment = '')`,
    );
    expect(tablesWithout).toEqual([]);
    expect(columnsWithout).toEqual([]);
    expect(await one(a!.db, `SELECT comment FROM duckdb_columns() WHERE table_name = 'films' AND column_name = 'views'`)).toMatch(/2\^53/);
  });

  it('replaces an existing file and ignores a stale temporary one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-examples-c-'));
    try {
      const file = join(dir, 'examples.duckdb');
      await writeFile(file, 'not a database');
      await writeFile(`${file}.tmp`, 'left by an interrupted build');
      await buildExampleDataset(file);
      expect(existsSync(`${file}.tmp`)).toBe(false);
      const c = await openReadOnly(file);
      try {
        expect(await one(c.db, `SELECT count(*) FROM rentals`)).toBe(2500n);
      } finally {
        close(c);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
