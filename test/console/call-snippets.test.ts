import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { launch, openQueryRun, settle, signIn, watchedPage } from './browser.ts';

/**
 * "Call it" (docs/reference/console.md): a saved query's page and a key's
 * row show curl, fetch and requests snippets and the MCP configuration; the
 * curl snippet, run in a shell as a user would paste it, answers the rows
 * the console showed.
 */

const ADMIN_KEY = 'console-snippets-admin-key-0001';
const run = promisify(execFile);
let origin: Origin;
let browser: Browser;
const admin = { 'x-api-key': ADMIN_KEY };
// A quote, a space and an ampersand: the snippet must shell-quote and URL-encode it.
const LABEL = "it's a b&c";

beforeAll(async () => {
  [origin, browser] = await Promise.all([startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } }), launch()]);
  const made = [
    await origin.call('POST', '/api/v1/connections', { name: 'memory', db: 'duckdb' }, admin),
    await origin.call('POST', '/api/v1/queries', { name: 'labelled', sql: 'SELECT i, :label AS label FROM range(:n) t(i)', connection_name: 'memory', parameters: { n: { type: 'int', max: 100 }, label: { type: 'string' } }, publish: true }, admin),
  ];
  expect(made.map((r) => r.status)).toEqual([201, 201]);
});
afterAll(async () => {
  await browser?.close();
  await origin?.stop();
});

describe('call snippets', () => {
  it("a saved query's curl snippet, run in a shell with the key, answers the rows the console shows", async () => {
    const { page, problems } = await openQueryRun(browser, origin.url, ADMIN_KEY, 'labelled');
    await page.getByLabel('n', { exact: true }).fill('3');
    await page.getByLabel('label', { exact: true }).fill(LABEL);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByTestId('results').locator('tbody tr').first().waitFor();
    const shown = await page.getByTestId('results').locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)));
    expect(shown).toEqual([['0', LABEL], ['1', LABEL], ['2', LABEL]]);

    const calls = page.getByRole('region', { name: 'Call it' });
    const curl = (await calls.getByLabel('curl', { exact: true }).textContent())!;
    expect(curl).toContain(`${origin.url}/q/labelled?`);
    expect(curl).toContain('"X-API-Key: $SLUICE_KEY"');
    const { stdout } = await run('bash', ['-c', curl], { env: { ...process.env, SLUICE_KEY: ADMIN_KEY } });
    const rows = JSON.parse(stdout) as Array<{ i: number; label: string }>;
    expect(rows.map((r) => [String(r.i), r.label])).toEqual(shown);
    expect(rows).toEqual((await origin.call('GET', `/q/labelled?n=3&label=${encodeURIComponent(LABEL)}`, undefined, admin)).body);

    // The format chosen goes into every snippet; the MCP configuration names /mcp and the header.
    await page.getByRole('combobox', { name: 'Download format' }).selectOption('csv');
    expect(await calls.getByLabel('curl', { exact: true }).textContent()).toContain('format=csv');
    expect(await calls.getByLabel('Python requests', { exact: true }).textContent()).toContain('format=csv');
    expect(await calls.getByLabel('JavaScript fetch', { exact: true }).textContent()).toContain('format=csv');
    const mcp = JSON.parse((await calls.getByLabel('MCP client configuration', { exact: true }).textContent())!);
    expect(mcp).toEqual({ mcpServers: { sluice: { type: 'http', url: `${origin.url}/mcp`, headers: { 'X-API-Key': '<your key>' } } } });

    // A stored result: its snippet reads the result again, chunks and all.
    await page.getByRole('button', { name: 'Run as a result' }).click();
    await page.getByText(/^Result ready: 3 rows/).waitFor();
    const again = (await page.getByTestId('snippets').first().getByLabel('curl', { exact: true }).textContent())!;
    expect(again).toMatch(new RegExp(`^curl -sS --fail-with-body '${origin.url}/results/[^']+' -H "X-API-Key: \\$SLUICE_KEY"$`));
    const result = JSON.parse((await run('bash', ['-c', again], { env: { ...process.env, SLUICE_KEY: ADMIN_KEY } })).stdout);
    expect(result).toMatchObject({ state: 'succeeded', rows: 3, format: 'csv' });
    expect(problems).toEqual([]);
  });

  it("a new key's secret is in its snippets once, and they work; the key's row shows them with the placeholder", async () => {
    const { page, problems } = await watchedPage(browser);
    await signIn(page, origin.url, ADMIN_KEY);
    await page.goto(`${origin.url}/console#/keys`);
    await settle(page);
    await page.getByRole('button', { name: 'New key' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('caller');
    // The key's queries: a checklist narrowed by typing, not a multi-select.
    const labelled = page.getByRole('dialog').getByRole('checkbox', { name: 'labelled' });
    await page.getByRole('dialog').getByLabel('Filter queries').fill('nothing like it');
    await labelled.waitFor({ state: 'hidden' });
    await page.getByRole('dialog').getByLabel('Filter queries').fill('label');
    await labelled.check();
    await page.getByRole('dialog').getByText('1 of 1 chosen').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    const secret = (await page.getByTestId('secret').textContent())!;
    const dialog = page.getByRole('dialog', { name: 'Key created' });
    const curl = (await dialog.getByLabel('curl', { exact: true }).textContent())!;
    expect(curl).toContain(secret);
    const { stdout } = await run('bash', ['-c', curl.replace('/q/labelled', '/q/labelled?n=2&label=x')]);
    expect(JSON.parse(stdout)).toEqual([{ i: 0, label: 'x' }, { i: 1, label: 'x' }]);
    await dialog.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('row', { name: /caller/ }).getByRole('button', { name: 'Call it' }).click();
    const calls = page.getByRole('dialog', { name: 'Call with caller' });
    expect(await calls.getByLabel('curl', { exact: true }).textContent()).toContain(`${origin.url}/q/labelled`);
    expect(await calls.textContent()).not.toContain(secret);
    expect(await calls.getByLabel('MCP client configuration', { exact: true }).textContent()).toContain('<your key>');
    expect(problems).toEqual([]);
  });
});
