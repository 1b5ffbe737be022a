import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { launch, openQueryRun, openScreen, signIn, watchedPage } from './browser.ts';

/**
 * axe-core (test/package.json, installed by scripts/services.sh) on every
 * screen the navigation lists, read from the page so a new screen is checked
 * without naming it here, and on a saved query's Run tab and the new-key
 * dialog: no violation of impact serious or critical.
 */

const ADMIN_KEY = 'console-a11y-admin-key-0001';
const admin = { 'x-api-key': ADMIN_KEY };
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let origin: Origin;
let browser: Browser;

beforeAll(async () => {
  [origin, browser] = await Promise.all([startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } }), launch()]);
  // Something in each list, so tables and their controls are checked too.
  const made = [
    await origin.call('POST', '/api/v1/connections', { name: 'memory', db: 'duckdb' }, admin),
    await origin.call('POST', '/api/v1/queries', { name: 'numbers', sql: 'SELECT i, :kind AS kind FROM range(:n) t(i)', connection_name: 'memory', parameters: { n: { type: 'int', max: 100 }, kind: { type: 'string', enum: ['a', 'b'], default: 'a' } }, collection: 'reports', publish: true }, admin),
    await origin.call('POST', '/api/v1/roles', { name: 'report-readers', collections: ['reports'] }, admin),
    await origin.call('POST', '/api/v1/api-keys', { name: 'reports-key', role: 'report-readers' }, admin),
  ];
  expect(made.map((r) => r.status)).toEqual([201, 201, 201, 201]);
  expect((await origin.call('GET', '/q/numbers?n=3', undefined, admin)).status).toBe(200);
});
afterAll(async () => {
  await browser?.close();
  await origin?.stop();
});

interface Found {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** axe's serious and critical violations on the page as it is now. */
async function audit(page: Page): Promise<Found[]> {
  // Evaluated, not added as a script tag: the console's Content-Security-Policy refuses inline scripts, as it should.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n: any) => n.target.join(' ')) }));
  });
  return (violations as Found[]).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

describe('accessibility', () => {
  it('finds no serious or critical axe violation on any screen of the navigation, in either theme', async () => {
    const { page, problems } = await watchedPage(browser);
    await signIn(page, origin.url, ADMIN_KEY);
    const titles = await page.locator('nav.side a').allTextContents();
    expect(titles.length).toBeGreaterThan(10);
    const found: Record<string, Found[]> = {};
    for (const theme of ['light', 'dark']) {
      if (theme === 'dark') await page.getByRole('button', { name: 'Dark theme' }).click();
      for (const title of titles) {
        await openScreen(page, title);
        const violations = await audit(page);
        if (violations.length) found[`${title} (${theme})`] = violations;
      }
    }
    expect(found).toEqual({});
    expect(problems).toEqual([]);
  }, 180_000);

  it("finds none on a saved query's Run tab with its results and snippets, nor in the new-key dialog", async () => {
    const { page, problems } = await openQueryRun(browser, origin.url, ADMIN_KEY, 'numbers');
    await page.getByLabel('n', { exact: true }).fill('3');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByTestId('results').waitFor();
    expect(await audit(page)).toEqual([]);
    await openScreen(page, 'API keys');
    await page.getByRole('button', { name: 'New key' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await audit(page)).toEqual([]);
    expect(problems).toEqual([]);
  });
});
