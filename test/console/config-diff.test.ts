import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { launch, openScreen, signIn, watchedPage } from './browser.ts';

/** The Configuration screen's Diff (docs/reference/console.md): the plan as `sluice config diff` prints it. */

const ADMIN_KEY = 'console-config-diff-admin-key-0001';
let origin: Origin;
let browser: Browser;

beforeAll(async () => {
  [origin, browser] = await Promise.all([startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } }), launch()]);
  const admin = { 'x-api-key': ADMIN_KEY };
  const made = [
    await origin.call('POST', '/api/v1/connections', { name: 'memory', db: 'duckdb' }, admin),
    await origin.call('POST', '/api/v1/queries', { name: 'numbers', sql: 'SELECT i FROM range(:n) t(i)', description: 'Counts to n', connection_name: 'memory', parameters: { n: { type: 'int' } }, publish: true }, admin),
  ];
  expect(made.map((r) => r.status)).toEqual([201, 201]);
});
afterAll(async () => {
  await browser?.close();
  await origin?.stop();
});

describe('the configuration diff', () => {
  it('shows a changed query as a ~ line with the field from -> to', async () => {
    const { page, problems } = await watchedPage(browser);
    await signIn(page, origin.url, ADMIN_KEY);
    await openScreen(page, 'Configuration');
    await page.getByRole('button', { name: 'Load current' }).click();
    const file = page.getByLabel('Configuration file');
    await expect.poll(() => file.inputValue()).toContain('Counts to n');
    await file.fill((await file.inputValue()).replace('Counts to n', 'Counts up to n'));
    await page.getByRole('button', { name: 'Diff' }).click();
    await expect.poll(() => page.getByTestId('config-verdict').textContent()).toMatch(/^Drift:/);
    const plan = (await page.getByTestId('config-result').textContent())!;
    expect(plan).toContain('  ~ numbers\n      description: "Counts to n" -> "Counts up to n"\n');
    expect(plan).toMatch(/Plan: 0 to create, 1 to change, 0 to delete/);
    expect(await page.getByTestId('config-result').locator('.plan-update').textContent()).toBe('  ~ numbers\n');
    expect(problems).toEqual([]);
  });
});
