import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestMongo, startMongo } from '../harness/mongo.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type FreshDatabase, freshDatabase } from '../harness/postgres-store.ts';
import { launch, openScreen, settle, signIn, watchedPage } from './browser.ts';

/**
 * What the console changes after creation, each driven in the browser and
 * read back through the API: a key's limits and write settings, a
 * destination and an export, an export's watermark, descriptions and notes,
 * another database's schema, a connection's privilege warnings, and a MongoDB
 * saved query.
 */

const ADMIN_KEY = 'console-editing-admin-key-0001';
const admin = { 'x-api-key': ADMIN_KEY };
let origin: Origin;
let browser: Browser;
let mongo: TestMongo;
/** A second database on the PostgreSQL server of the `server` connection, with one table. */
let other: FreshDatabase;
const exportDir = mkdtempSync(join(tmpdir(), 'sluice-console-editing-'));

beforeAll(async () => {
  [origin, browser, mongo, other] = await Promise.all([startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_EXPORT_DIRS: exportDir } }), launch(), startMongo(), freshDatabase()]);
  const sql = postgres(other.url, { max: 1, onnotice: () => {} });
  await sql.unsafe('create table parcels (id int primary key, weight_kg numeric)');
  await sql.end({ timeout: 5 });
  await mongo.client().db('test').collection('films').insertMany([{ title: 'Old', year: 1980 }, { title: 'Newer', year: 1995 }, { title: 'Newest', year: 2010 }]);
  // On the bundled examples connection: a published query read incrementally by id.
  const made = [
    await origin.call('POST', '/api/v1/queries', { name: 'films-after', sql: 'SELECT id, title FROM films WHERE id > :after ORDER BY id', connection_name: 'examples', parameters: { after: { type: 'int', default: 0 } }, publish: true }, admin),
    await origin.call('POST', '/api/v1/destinations', { name: 'folder', url: join(exportDir, 'one') }, admin),
    await origin.call('POST', '/api/v1/destinations', { name: 'bucket', url: 's3://sluice-test/exports', region: 'us-east-1', endpoint: 'http://127.0.0.1:9', user: 'AKIATEST', password: 'bucket-secret-value' }, admin),
    await origin.call('POST', '/api/v1/exports', { name: 'films-incremental', query: 'films-after', destination: 'folder', format: 'csv', incremental: { column: 'id', parameter: 'after', start: 0 } }, admin),
    await origin.call('POST', '/api/v1/connections', { name: 'catalog', db: 'mongodb', host: mongo.host, port: mongo.port, database: 'test' }, admin),
    await origin.call('POST', '/api/v1/connections', { name: 'server', db: 'postgres', host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' }, admin),
  ];
  expect(made.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
});
afterAll(async () => {
  await browser?.close();
  await origin?.stop();
  await mongo?.stop();
  await other?.drop();
  rmSync(exportDir, { recursive: true, force: true });
});

async function ownerPage(): Promise<{ page: Page; problems: string[] }> {
  const watched = await watchedPage(browser);
  await signIn(watched.page, origin.url, ADMIN_KEY);
  return watched;
}

const read = async (path: string) => {
  const res = await origin.call('GET', path, undefined, admin);
  expect(res.status).toBe(200);
  return res.body;
};

describe('editing in the console', () => {
  it("creates and edits a key's allowed addresses, limits and write settings", async () => {
    const { page, problems } = await ownerPage();
    await openScreen(page, 'API keys');
    await page.getByRole('button', { name: 'New key' }).click();
    const form = page.getByRole('dialog');
    await form.getByLabel('Name').fill('limited');
    await form.getByRole('checkbox', { name: 'films-after', exact: true }).check();
    await form.getByLabel('Allowed addresses').fill('10.1.2.3/8, 127.0.0.1');
    await form.getByLabel('Rate limit').fill('10/minute');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('row', { name: /limited/ }).getByText('from 10.0.0.0/8, 127.0.0.1 · 10/minute').waitFor();
    let key = await read('/api/v1/api-keys/limited');
    expect(key).toMatchObject({ allowed_ips: ['10.0.0.0/8', '127.0.0.1'], rate_limit: '10/minute', quota: null, allow_writes: false });

    await page.getByRole('row', { name: /limited/ }).getByRole('button', { name: 'Edit' }).click();
    expect(await form.getByLabel('Allowed addresses').inputValue()).toBe('10.0.0.0/8, 127.0.0.1');
    await form.getByLabel('Allowed addresses').fill('203.0.113.7');
    await form.getByLabel('Rate limit').fill('');
    await form.getByLabel('Quota').fill('500/day');
    await form.getByLabel('Max rows').fill('50');
    await form.getByLabel('Time limit (s)').fill('2.5');
    await form.getByLabel('May write through').fill('films-after');
    await form.getByLabel('Allow writes').check();
    await form.getByLabel('Write operations').fill('INSERT, update');
    await form.getByLabel('Writable tables').fill('staging.*');
    await form.getByLabel('Max estimated rows').fill('5000');
    await form.getByLabel('Database seconds per day').fill('90.5');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /limited/ }).getByText('from 203.0.113.7 · 500/day · 50 rows · budget · writes').waitFor();
    key = await read('/api/v1/api-keys/limited');
    expect(key).toMatchObject({
      queries: [{ name: 'films-after', allow_writes: true }],
      allowed_ips: ['203.0.113.7'],
      rate_limit: null,
      quota: '500/day',
      max_rows: 50,
      query_timeout: 2.5,
      allow_writes: true,
      allowed_write_ops: ['insert', 'update'],
      allowed_tables: ['staging.*'],
      budget: { max_estimated_rows: 5000, rows_per_day: null, db_seconds_per_day: 90.5 },
    });

    // A refused value shows the API's error in the dialog, and nothing changes.
    await page.getByRole('row', { name: /limited/ }).getByRole('button', { name: 'Edit' }).click();
    await form.getByLabel('Allowed addresses').fill('not-an-address');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByRole('alert').getByText('HTTP 400').waitFor();
    await form.getByRole('button', { name: 'Cancel' }).click();
    expect((await read('/api/v1/api-keys/limited')).allowed_ips).toEqual(['203.0.113.7']);

    // The budget read back into the editor; emptied, it is none.
    await page.getByRole('row', { name: /limited/ }).getByRole('button', { name: 'Edit' }).click();
    expect(await form.getByLabel('Max estimated rows').inputValue()).toBe('5000');
    await form.getByLabel('Max estimated rows').fill('');
    await form.getByLabel('Database seconds per day').fill('');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /limited/ }).getByText('from 203.0.113.7 · 500/day · 50 rows · writes').waitFor();
    expect((await read('/api/v1/api-keys/limited')).budget).toBeNull();

    // No address at all is [], not null; unticked, the addresses typed count again.
    await page.getByRole('row', { name: /limited/ }).getByRole('button', { name: 'Edit' }).click();
    await form.getByLabel('No address').check();
    expect(await form.getByLabel('Allowed addresses').isDisabled()).toBe(true);
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /limited/ }).getByText('no address · 500/day · 50 rows · writes').waitFor();
    expect((await read('/api/v1/api-keys/limited')).allowed_ips).toEqual([]);
    await page.getByRole('row', { name: /limited/ }).getByRole('button', { name: 'Edit' }).click();
    expect(await form.getByLabel('No address').isChecked()).toBe(true);
    await form.getByLabel('No address').uncheck();
    await form.getByLabel('Allowed addresses').fill('203.0.113.8');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /limited/ }).getByText('from 203.0.113.8 · 500/day · 50 rows · writes').waitFor();
    expect((await read('/api/v1/api-keys/limited')).allowed_ips).toEqual(['203.0.113.8']);
    // That refusal was the point: the response and the console's report of it, nothing else.
    const refusal = (p: string) => p.startsWith('HTTP 400') || p.includes('status of 400');
    expect(problems.filter(refusal)).toHaveLength(2);
    expect(problems.filter((p) => !refusal(p))).toEqual([]);
  });

  it('edits a destination without ever showing its secret, and an export', async () => {
    const { page, problems } = await ownerPage();
    await openScreen(page, 'Destinations');
    await page.getByRole('row', { name: /bucket/ }).getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('dialog');
    expect(await form.getByLabel('Secret').inputValue()).toBe('');
    expect(await form.getByLabel('Secret').getAttribute('placeholder')).toBe('unchanged');
    expect(await form.getByLabel('Access key id').inputValue()).toBe('AKIATEST');
    await form.getByLabel('Region').fill('eu-west-3');
    await form.getByLabel('Endpoint').fill('');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /bucket/ }).getByRole('cell', { name: 'eu-west-3' }).waitFor();
    expect(await read('/api/v1/destinations/bucket')).toMatchObject({ region: 'eu-west-3', endpoint: null, user: 'AKIATEST', password: '********' });
    expect(await page.content()).not.toContain('bucket-secret-value');

    await page.getByRole('row', { name: /folder/ }).getByRole('button', { name: 'Edit' }).click();
    await form.getByLabel('URL').fill(join(exportDir, 'two'));
    await form.getByRole('button', { name: 'Test' }).click();
    await form.getByText('Test passed').waitFor();
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: join(exportDir, 'two') }).waitFor();
    expect((await read('/api/v1/destinations/folder')).url).toBe(join(exportDir, 'two'));

    await openScreen(page, 'Exports');
    await page.getByRole('row', { name: /films-incremental/ }).getByRole('button', { name: 'Edit' }).click();
    expect(JSON.parse(await form.getByLabel('Incremental (JSON)').inputValue())).toEqual({ column: 'id', parameter: 'after', start: 0 });
    await form.getByLabel('Format').selectOption('ndjson');
    await form.getByLabel('Path').fill('films/{run}');
    await form.getByLabel('Timeout (s)').fill('30');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /films-incremental/ }).getByRole('cell', { name: 'ndjson' }).waitFor();
    expect(await read('/api/v1/exports/films-incremental')).toMatchObject({ format: 'ndjson', path: 'films/{run}', timeout: 30, destination: 'folder', incremental: { column: 'id', parameter: 'after', start: 0 } });
    expect(problems).toEqual([]);
  });

  it("runs an incremental export, then rewinds and resets its watermark", async () => {
    const { page, problems } = await ownerPage();
    await openScreen(page, 'Exports');
    const row = page.getByRole('row', { name: /films-incremental/ });
    const watermark = row.locator('td[data-label="Watermark"]');
    await row.getByRole('button', { name: 'Run now' }).click();
    await page.getByText(/^Run success: \d+ rows/).waitFor();
    const delivered = (await read('/api/v1/exports/films-incremental')).watermark;
    expect(delivered).toBeGreaterThan(3);
    await expect.poll(() => watermark.textContent()).toBe(String(delivered));

    await row.getByRole('button', { name: 'Rewind' }).click();
    await page.getByRole('dialog').getByLabel('Watermark (JSON or text)').fill('3');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => watermark.textContent()).toBe('3');
    expect((await read('/api/v1/exports/films-incremental')).watermark).toBe(3);

    // The next run delivers only what follows the rewound watermark.
    await row.getByRole('button', { name: 'Run now' }).click();
    await page.getByText(`Run success: ${delivered - 3} rows`).waitFor();

    await row.getByRole('button', { name: 'Rewind' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => watermark.textContent()).toBe('—');
    expect((await read('/api/v1/exports/films-incremental')).watermark).toBeNull();
    expect(problems).toEqual([]);
  });

  it('imports, writes and loads descriptions and notes on the schema browser', async () => {
    const { page, problems } = await ownerPage();
    await page.goto(`${origin.url}/console#/connections/schema/examples`);
    await settle(page);
    const dialog = page.getByRole('dialog');
    await page.getByRole('button', { name: 'Import descriptions' }).click();
    await dialog.getByRole('button', { name: 'From the database' }).click();
    await dialog.getByText(/^Imported from the database: \d+ comments found/).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    const genres = page.getByRole('row', { name: /^genres/ });
    await genres.getByText(/^Film genres\./).waitFor();

    await genres.getByRole('button', { name: 'Edit description' }).click();
    await dialog.getByLabel('Table', { exact: true }).fill('Genres of the shop');
    await dialog.getByLabel('name', { exact: true }).fill('Shown in the shop');
    await dialog.getByLabel('description', { exact: true }).fill('');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await genres.getByText('Genres of the shop').waitFor();
    await page.getByRole('button', { name: 'Edit notes' }).click();
    await dialog.getByLabel('Notes').fill('Made-up data: safe to show');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('notes').getByText('Made-up data: safe to show').waitFor();
    let described = await read('/api/v1/connections/examples/descriptions');
    const of = (column: string | null) => described.items.find((i: any) => i.table === 'genres' && i.column === column)?.description;
    expect(described.notes).toBe('Made-up data: safe to show');
    expect([of(null), of('name'), of('description')]).toEqual(['Genres of the shop', 'Shown in the shop', undefined]);

    // A file shaped as the GET answers: its items and notes, in one PATCH.
    await page.getByRole('button', { name: 'Import descriptions' }).click();
    const file = { notes: 'From a file', items: [{ table: 'genres', column: 'id', description: 'Genre number' }] };
    await dialog.getByLabel('Descriptions file (JSON)').setInputFiles({ name: 'descriptions.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(file)) });
    await dialog.getByRole('button', { name: 'Load file' }).click();
    await dialog.getByText('Loaded 1 descriptions from the file.').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await genres.getByText('Genre number').waitFor();
    described = await read('/api/v1/connections/examples/descriptions');
    expect([described.notes, of('id'), of('name')]).toEqual(['From a file', 'Genre number', 'Shown in the shop']);
    expect(problems).toEqual([]);
  });

  it("reads another database of the connection's server, without its descriptions", async () => {
    const { page, problems } = await ownerPage();
    await page.goto(`${origin.url}/console#/connections/schema/server`);
    await page.getByRole('heading', { name: 'Schema of server', exact: true }).waitFor();
    const picker = page.getByLabel('Database');
    await picker.getByRole('option', { name: other.name }).waitFor({ state: 'attached' });
    expect(await picker.locator('option').first().textContent()).toBe("test (the connection's own)");

    await picker.selectOption(other.name);
    await page.getByRole('heading', { name: `Schema of server · ${other.name}` }).waitFor();
    expect(page.url()).toContain(`#/connections/schema/server/${other.name}`);
    const parcels = page.getByRole('row', { name: /^parcels/ });
    await parcels.getByText('weight_kg').waitFor();
    await page.getByText("Another database on the connection's server").waitFor();
    expect(await page.getByRole('button', { name: /Import descriptions|Edit notes|Edit description/ }).count()).toBe(0);

    await page.getByLabel('Database').selectOption('');
    await page.getByRole('heading', { name: 'Schema of server', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Import descriptions' }).waitFor();
    expect(problems).toEqual([]);
  });

  it("shows a connection's privilege warnings in the list and its edit form", async () => {
    const { page, problems } = await ownerPage();
    await openScreen(page, 'Connections');
    const row = page.getByRole('row', { name: /^server/ });
    const cell = row.getByText('1 warning');
    await cell.waitFor();
    expect(await cell.getAttribute('title')).toMatch(/^The user is a superuser/);
    await page.getByRole('row', { name: /^examples/ }).getByText('least privilege').waitFor();
    await row.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('dialog').getByText(/^The user is a superuser/).waitFor();
    expect(problems).toEqual([]);
  });

  it('offers no other database for a single DuckDB file', async () => {
    const { page, problems } = await ownerPage();
    await page.goto(`${origin.url}/console#/connections/schema/examples`);
    await page.getByRole('row', { name: /^genres/ }).waitFor();
    await settle(page);
    expect(await page.getByLabel('Database').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('writes a MongoDB saved query with its own fields instead of SQL, and a new version of it', async () => {
    const { page, problems } = await ownerPage();
    await page.goto(`${origin.url}/console#/queries/new`);
    await settle(page);
    expect(await page.getByTestId('mongo-fields').isVisible()).toBe(false);
    await page.getByLabel('Name', { exact: true }).fill('films-since');
    await page.getByLabel('Connection').selectOption('catalog');
    expect(await page.getByRole('textbox', { name: 'SQL' }).isVisible()).toBe(false);
    await page.getByLabel('MongoDB collection').fill('films');
    await page.getByLabel('Filter (JSON)').fill('{"year": {"$gte": ":from"}}');
    await page.getByLabel('Projection (JSON)').fill('{"_id": 0, "title": 1, "year": 1}');
    await page.getByLabel('Sort (JSON)').fill('{"year": 1}');
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.getByTestId('validation').waitFor();
    expect(await page.getByLabel('Parameter name').inputValue()).toBe('from');
    await page.getByRole('combobox', { name: 'Type' }).selectOption('int');
    await page.getByRole('button', { name: 'Save and publish' }).click();
    await page.getByRole('heading', { name: 'films-since' }).waitFor();
    await page.getByText('films.find({"year":{"$gte":":from"}})').waitFor();

    const saved = await read('/api/v1/queries/films-since');
    expect(saved).toMatchObject({ connection_name: 'catalog', mongo_collection: 'films', mongo_filter: { year: { $gte: ':from' } }, mongo_sort: { year: 1 }, published_version: 1 });
    expect(saved.versions).toMatchObject([{ version: 1, query_type: 'mongo', sql: null, parameters: { from: 'integer' } }]);
    expect((await origin.call('GET', '/q/films-since?from=1990', undefined, admin)).body).toEqual([{ title: 'Newer', year: 1995 }, { title: 'Newest', year: 2010 }]);

    await page.getByRole('tab', { name: 'New version' }).click();
    expect(await page.getByLabel('MongoDB collection').inputValue()).toBe('films');
    await page.getByLabel('Sort (JSON)').fill('{"year": -1}');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('cell', { name: 'v2' }).waitFor();
    const v2 = (await read('/api/v1/queries/films-since')).versions.find((v: any) => v.version === 2);
    expect(v2).toMatchObject({ query_type: 'mongo', sql: null, mongo_collection: 'films', mongo_sort: { year: -1 }, mongo_filter: { year: { $gte: ':from' } } });
    expect(problems).toEqual([]);
  });
});
