import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { PG, pgExec } from '../api/connections-fixtures.ts';
import { unique } from '../harness/unique.ts';
import { consoleSuite, openScreen, settle, shot, signIn, watchedPage } from './browser.ts';

/**
 * The SQL workbench (docs/reference/console.md): statements run through
 * POST /execute_sql on the bundled examples, whose `films` rows 6 and 9 have
 * view counts past 2^53 and prices with a scale of 2; one table's first rows
 * on PostgreSQL, in a schema of its own.
 */

const ADMIN_KEY = 'console-workbench-admin-key-0001';
const EXACT_SQL = 'select id, views, price from films where id in (6, 9) order by id';
const suite = consoleSuite(ADMIN_KEY);

/** The API's answer as text, each row's values as the JSON wrote them (no double in between). */
async function rawRows(sql: string): Promise<string[][]> {
  const res = await suite.origin.fetch('/execute_sql', { method: 'POST', headers: { 'x-api-key': ADMIN_KEY }, json: { sql, connection_name: 'examples' } });
  expect(res.status).toBe(200);
  const text = await res.text();
  return [...text.matchAll(/\{([^}]*)\}/g)].map((row) => [...row[1].matchAll(/"\w+":("(?:[^"\\]|\\.)*"|[^,]+)/g)].map((v) => v[1].replace(/^"|"$/g, '')));
}

async function openWorkbench(): Promise<{ page: Page; problems: string[] }> {
  const { page, problems } = await watchedPage(suite.browser);
  await signIn(page, suite.origin.url, ADMIN_KEY);
  await openScreen(page, 'SQL workbench');
  await page.getByRole('combobox', { name: 'Connection' }).selectOption('examples');
  await page.getByRole('button', { name: 'First rows of films' }).waitFor();
  return { page, problems };
}

async function run(page: Page, sql: string): Promise<void> {
  await page.getByRole('textbox', { name: 'SQL' }).fill(sql);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.locator('.wb-out').locator('[data-testid="results"], [role="alert"]').first().waitFor();
}

const gridRows = (page: Page) => page.getByTestId('results').locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')));

describe('the SQL workbench', () => {
  it('shows 64-bit integers and decimals exactly as POST /execute_sql writes them', async () => {
    const api = await rawRows(EXACT_SQL);
    expect(api).toEqual([['6', '9007199254740993', '5.99'], ['9', '18014398509481985', '4.99']]);
    const { page, problems } = await openWorkbench();
    await run(page, EXACT_SQL);
    expect(await gridRows(page)).toEqual(api);
    expect(await page.getByTestId('results').locator('td.num').count()).toBe(6);
    expect(await page.getByTestId('run-facts').textContent()).toMatch(/^2 rows on page 1 · \d+ ms · SELECT · tables read: films$/);
    // Ctrl+Enter runs too; nulls are marked, dates are the API's text.
    const wide = 'select id, rating, release_date, length_minutes, views, price, 1.50 as scaled, null as nothing from films where id between 5 and 10 order by id';
    await page.getByRole('textbox', { name: 'SQL' }).fill(wide);
    await page.getByRole('textbox', { name: 'SQL' }).press('Control+Enter');
    await page.getByTestId('results').getByText('NULL').first().waitFor();
    expect(await gridRows(page)).toEqual((await rawRows(wide)).map((r) => r.map((v) => (v === 'null' ? 'NULL' : v))));
    await shot(page, 'grid');
    // A long value: its start in the cell, the whole of it one click away.
    await run(page, "select repeat('ab', 150) as long_text");
    await page.getByRole('button', { name: 'Full value of long_text, row 1' }).click();
    expect(await page.getByRole('dialog').locator('pre').textContent()).toBe('ab'.repeat(150));
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    expect(problems).toEqual([]);
  });

  it('shows the 403 of a write on a read-only server and the database message of a syntax error', async () => {
    const { page, problems } = await openWorkbench();
    await run(page, 'delete from films where id = 1');
    const alert = page.locator('.wb-out [role="alert"]');
    expect(await alert.textContent()).toContain('Writes are disabled on this server: DELETE is a write statement');
    expect(await alert.textContent()).toContain('HTTP 403');
    await run(page, 'select id from films\nwhere id = = 1');
    expect(await alert.textContent()).toContain('The database rejected the query');
    expect(await alert.textContent()).toMatch(/Parser Error: syntax error at or near "="/);
    await page.getByRole('button', { name: 'Go to line 2' }).click();
    expect(await page.getByRole('textbox', { name: 'SQL' }).evaluate((t: HTMLTextAreaElement) => t.value.slice(t.selectionStart, t.selectionEnd))).toBe('where id = = 1');
    // Only the refusals asked for (the run and its dry run each): nothing else failed.
    expect(problems.filter((p) => !/^HTTP (403|500): POST .*\/execute_sql|^console: Failed to load resource: the server responded with a status of (403|500)/.test(p))).toEqual([]);
  });

  it("completes table names after from and a table's columns after its name and a dot", async () => {
    const { page, problems } = await openWorkbench();
    const sql = page.getByRole('textbox', { name: 'SQL' });
    await sql.fill('');
    await sql.pressSequentially('select * from f');
    const options = page.getByRole('listbox', { name: 'Completions' }).getByRole('option');
    await options.first().waitFor();
    const names = async () => (await options.locator('.name').allTextContents());
    expect(await names()).toEqual(['film_genres', 'films']);
    await sql.press('ArrowDown');
    await sql.press('Enter');
    expect(await sql.inputValue()).toBe('select * from films');
    await sql.pressSequentially(' where films.');
    await options.first().waitFor();
    expect(await names()).toEqual(['id', 'title', 'director_id', 'release_date', 'rating', 'length_minutes', 'price', 'views', 'description']);
    expect(await options.first().textContent()).toContain('INTEGER');
    await shot(page, 'workbench');
    await sql.pressSequentially('vi');
    expect(await names()).toEqual(['views']);
    await sql.press('Tab');
    expect(await sql.inputValue()).toBe('select * from films where films.views');
    await sql.pressSequentially(' > 1');
    await sql.press('Escape');
    await expect.poll(() => page.getByRole('listbox', { name: 'Completions' }).isVisible()).toBe(false);
    expect(problems).toEqual([]);
  });

  it('explains, opens the first rows of a table, keeps a history, and saves a statement as a query', async () => {
    const { page, problems } = await openWorkbench();
    await page.getByRole('textbox', { name: 'SQL' }).fill('select id, title from films where id < :before');
    await page.getByRole('textbox', { name: ':before' }).fill('5');
    await page.getByRole('button', { name: 'Explain' }).click();
    const estimate = page.getByTestId('estimate');
    await estimate.waitFor();
    expect(await estimate.textContent()).toMatch(/StatementSELECTTables readfilmsEstimated rows\d+.*Estimate fromplanner/);

    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByTestId('results').waitFor();
    expect((await gridRows(page)).map((r) => r[0])).toEqual(['1', '2', '3', '4']);

    // Download: the whole result as a stream, the same bytes the API streams.
    await page.getByRole('combobox', { name: 'Download format' }).selectOption('csv');
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
    const stream = await suite.origin.fetch('/execute_sql?stream=true&format=csv', { method: 'POST', headers: { 'x-api-key': ADMIN_KEY }, json: { sql: 'select id, title from films where id < :before', params: { before: '5' }, connection_name: 'examples' } });
    expect(readFileSync((await file.path())!, 'utf8')).toBe(await stream.text());

    // The examples' 40 films, 25 a page.
    await page.getByRole('combobox', { name: 'Rows per page' }).selectOption('25');
    await page.getByRole('button', { name: 'First rows of films' }).click();
    await expect.poll(() => page.getByRole('textbox', { name: 'SQL' }).inputValue()).toBe('select * from "films" limit 50');
    await page.getByText(/^25 rows on page 1/).waitFor();
    await page.getByRole('button', { name: 'Next ›' }).click();
    await page.getByText(/^15 rows on page 2/).waitFor();
    expect(await page.getByRole('button', { name: 'Next ›' }).isDisabled()).toBe(true);

    // History: the newest first; a click puts the statement back.
    const history = page.locator('.wb-history button');
    expect(await history.allTextContents()).toEqual(['select * from "films" limit 50', 'select id, title from films where id < :before']);
    await history.nth(1).click();
    expect(await page.getByRole('textbox', { name: 'SQL' }).inputValue()).toBe('select id, title from films where id < :before');

    await page.getByRole('button', { name: 'Save as query' }).click();
    await page.getByRole('heading', { name: 'New query' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'SQL' }).inputValue()).toBe('select id, title from films where id < :before');
    expect(await page.getByRole('combobox', { name: 'Connection' }).inputValue()).toBe('examples');
    expect(await page.getByRole('textbox', { name: 'Parameter name' }).inputValue()).toBe('before');
    expect(problems).toEqual([]);
  });

  it('opens the first rows of a PostgreSQL table outside public whose name needs quoting', async () => {
    const schema = unique('wb_other');
    const connection = unique('wb_pg');
    onTestFinished(() => pgExec(`drop schema if exists ${schema} cascade`));
    await pgExec(`create schema ${schema}`, `create table ${schema}."Mixed Films" (id int primary key, "Title" text)`, `insert into ${schema}."Mixed Films" values (1, 'a'), (2, 'b'), (3, 'c')`);
    const made = await suite.origin.call('POST', '/api/v1/connections', { name: connection, db: 'postgres', ...PG }, { 'x-api-key': ADMIN_KEY });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const { page, problems } = await watchedPage(suite.browser);
    await signIn(page, suite.origin.url, ADMIN_KEY);
    await openScreen(page, 'SQL workbench');
    await page.getByRole('combobox', { name: 'Connection' }).selectOption(connection);
    await page.getByRole('button', { name: `First rows of ${schema}.Mixed Films` }).click();
    await expect.poll(() => page.getByRole('textbox', { name: 'SQL' }).inputValue()).toBe(`select * from "${schema}"."Mixed Films" limit 50`);
    await page.getByText(/^3 rows on page 1/).waitFor();
    expect(await gridRows(page)).toEqual([['1', 'a'], ['2', 'b'], ['3', 'c']]);
    expect(problems).toEqual([]);
  });

  it("completes names in a new query's SQL, runs its draft in place, and a saved query's results keep their digits", async () => {
    const { page, problems } = await watchedPage(suite.browser);
    await signIn(page, suite.origin.url, ADMIN_KEY);
    await page.goto(`${suite.origin.url}/console#/queries/new`);
    await settle(page);
    // The connection's schema, read when it is chosen, completes names as in the workbench.
    await Promise.all([page.waitForResponse((res) => res.url().endsWith('/api/v1/connections/examples/schema')), page.getByRole('combobox', { name: 'Connection' }).selectOption('examples')]);
    const sql = page.getByRole('textbox', { name: 'SQL' });
    await sql.pressSequentially('select * from fi');
    const options = page.getByRole('listbox', { name: 'Completions' }).getByRole('option');
    await options.first().waitFor();
    expect(await options.locator('.name').allTextContents()).toEqual(['film_genres', 'films']);
    await sql.press('Escape');
    await sql.fill(EXACT_SQL);
    await page.getByRole('button', { name: 'Run draft' }).click();
    await page.getByTestId('results').waitFor();
    expect(await gridRows(page)).toEqual(await rawRows(EXACT_SQL));

    const made = await suite.origin.call('POST', '/api/v1/queries', { name: 'big_views', sql: EXACT_SQL, connection_name: 'examples', publish: true }, { 'x-api-key': ADMIN_KEY });
    expect(made.status).toBe(201);
    await page.goto(`${suite.origin.url}/console#/queries/big_views`);
    await settle(page);
    await page.getByRole('tab', { name: 'Run' }).click();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByTestId('results').waitFor();
    expect(await gridRows(page)).toEqual(await rawRows(EXACT_SQL));
    expect(problems).toEqual([]);
  });
});
