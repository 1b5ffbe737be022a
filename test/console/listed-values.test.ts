import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type TestDb, createTestDb } from '../query/fixture.ts';
import { launch, openQueryRun, settle, shot, signIn, watchedPage } from './browser.ts';

/**
 * The run form's drop-downs (docs/reference/console.md): a parameter whose
 * values come from the data lists them, read again by Refresh values; one
 * with an `enum` lists that.
 */

const ADMIN_KEY = 'console-listed-values-admin-key-0001';
let origin: Origin;
let browser: Browser;
let pg: TestDb;
const folder = mkdtempSync(join(tmpdir(), 'sluice-console-values-'));

beforeAll(async () => {
  [origin, browser, pg] = await Promise.all([startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } }), launch(), createTestDb('postgres', folder)]);
  await pg.exec(
    'CREATE TABLE films (id int PRIMARY KEY, title text, rating text)',
    "INSERT INTO films VALUES (1, 'Alpha', 'PG'), (2, 'Beta', 'R'), (3, 'Gamma', 'G'), (4, 'Delta', 'PG-13'), (5, 'Epsilon', 'PG'), (6, 'Zeta', NULL)",
  );
  const admin = { 'x-api-key': ADMIN_KEY };
  const sql = 'select id, title from films where rating = :rating order by id';
  const made = [
    await origin.call('POST', '/api/v1/connections', { name: 'films', ...pg.fields }, admin),
    await origin.call('POST', '/api/v1/queries', { name: 'films_by_rating', sql, connection_name: 'films', parameters: { rating: { type: 'string', values_query: 'select distinct rating from films', description: 'A film rating' } }, publish: true }, admin),
    await origin.call('POST', '/api/v1/queries', { name: 'films_of_enum', sql, connection_name: 'films', parameters: { rating: { type: 'string', enum: ['G', 'PG'], default: 'PG' } }, publish: true }, admin),
    await origin.call('POST', '/api/v1/queries', { name: 'films_typed', sql: 'select id, title from films where id <= :max_id and (:rated = (rating is not null)) and coalesce(:low, 0) <= id order by id', connection_name: 'films', parameters: { max_id: 'integer', rated: { type: 'boolean', default: true }, low: { type: 'number', required: false } }, publish: true }, admin),
  ];
  expect(made.map((r) => r.status)).toEqual([201, 201, 201, 201]);
});
afterAll(async () => {
  await browser?.close();
  await origin?.stop();
  await pg?.drop();
  rmSync(folder, { recursive: true, force: true });
});

describe('the run form', () => {
  it('types each input by its parameter and marks the required ones', async () => {
    const { page, problems } = await openQueryRun(browser, origin.url, ADMIN_KEY, 'films_typed');
    const maxId = page.getByLabel('max_id', { exact: true });
    const low = page.getByLabel('low', { exact: true });
    expect([await maxId.getAttribute('inputmode'), await maxId.evaluate((el: HTMLInputElement) => el.required)]).toEqual(['numeric', true]);
    expect(await page.locator('.field', { has: maxId }).locator('.required-mark').textContent()).toBe('required');
    expect(await page.locator('.field', { has: low }).locator('.required-mark').count()).toBe(0);
    expect([await low.getAttribute('inputmode'), await low.evaluate((el: HTMLInputElement) => el.required)]).toEqual(['decimal', false]);
    const rated = page.getByRole('combobox', { name: 'rated', exact: true });
    expect(await rated.locator('option').allTextContents()).toEqual(['', 'true', 'false']);
    expect(await rated.inputValue()).toBe('true');
    await maxId.fill('3');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByTestId('results').getByRole('cell', { name: 'Gamma' }).waitFor();
    expect(problems).toEqual([]);
  });
});

describe('the run form of a parameter with allowed values', () => {
  it('lists the values from the data in a drop-down, runs with one, and reads a new one on Refresh values', async () => {
    const { page, problems } = await openQueryRun(browser, origin.url, ADMIN_KEY, 'films_by_rating');
    const rating = page.getByRole('combobox', { name: 'rating', exact: true });
    const note = page.getByText(/^\d+ values?, read \d\d:\d\d:\d\d UTC$/);
    await note.waitFor();
    // Required: no empty choice.
    expect(await rating.locator('option').allTextContents()).toEqual(['G', 'PG', 'PG-13', 'R']);
    expect(await note.textContent()).toMatch(/^4 values, /);

    await rating.selectOption('PG');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByTestId('results').waitFor();
    expect(await page.getByTestId('results').locator('tbody tr').allTextContents()).toEqual(['1Alpha', '5Epsilon']);

    // A value added to the table: the list read again keeps the choice and offers it.
    await pg.exec("INSERT INTO films VALUES (7, 'Eta', 'NC-17')");
    await page.getByRole('button', { name: 'Refresh values' }).click();
    await page.getByText(/^5 values, read /).waitFor();
    expect(await rating.locator('option').allTextContents()).toEqual(['G', 'NC-17', 'PG', 'PG-13', 'R']);
    expect(await rating.inputValue()).toBe('PG');
    await rating.selectOption('NC-17');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByTestId('results').getByRole('cell', { name: 'Eta' }).waitFor();
    await shot(page, 'parameter-values');
    expect(problems).toEqual([]);
  });

  it('keeps the rule when a new version is saved from the console, whose table has no column for it', async () => {
    const { page, problems } = await watchedPage(browser);
    await signIn(page, origin.url, ADMIN_KEY);
    await page.goto(`${origin.url}/console#/queries/films_by_rating`);
    await settle(page);
    await page.getByRole('tab', { name: 'New version' }).click();
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('cell', { name: 'v2' }).waitFor();
    const read = await origin.call('GET', '/api/v1/queries/films_by_rating', undefined, { 'x-api-key': ADMIN_KEY });
    const [v1, v2] = read.body.versions.map((v: { parameters: unknown }) => v.parameters);
    expect(v2).toEqual(v1);
    expect(v2).toEqual({ rating: { type: 'string', description: 'A film rating', values_query: 'select distinct rating from films' } });
    expect(problems).toEqual([]);
  });

  it('lists an enum in a drop-down, with an empty first choice when the parameter is optional', async () => {
    const { page, problems } = await openQueryRun(browser, origin.url, ADMIN_KEY, 'films_of_enum');
    const rating = page.getByRole('combobox', { name: 'rating', exact: true });
    expect(await rating.locator('option').allTextContents()).toEqual(['', 'G', 'PG']);
    expect(await rating.inputValue()).toBe('PG');
    await rating.selectOption('G');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByTestId('results').getByRole('cell', { name: 'Gamma' }).waitFor();
    expect(problems).toEqual([]);
  });
});
