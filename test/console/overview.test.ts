import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { consoleSuite, openScreen, shot, signIn, watchedPage } from './browser.ts';

/** The overview (docs/reference/console.md): the server's counts from the API, and next steps while it is empty. */

const ADMIN_KEY = 'console-overview-admin-key-0001';
const admin = { 'x-api-key': ADMIN_KEY };
const suite = consoleSuite(ADMIN_KEY);

const counts = (page: Page) =>
  page.getByRole('list', { name: 'Counts' }).locator('li').evaluateAll((items) => Object.fromEntries(items.map((li) => [li.querySelector('.count-label')!.textContent, li.querySelector('.count-value')!.textContent])));

describe('the overview', () => {
  it('on an empty server, links the next steps: a connection, a query, a key', async () => {
    const { page, problems } = await watchedPage(suite.browser);
    await signIn(page, suite.origin.url, ADMIN_KEY);
    await openScreen(page, 'Overview');
    const steps = page.getByRole('region', { name: 'Next steps' });
    expect(await steps.getByRole('link').evaluateAll((links) => links.map((a) => [a.textContent, a.getAttribute('href')]))).toEqual([
      ['Add a connection', '#/connections'],
      ['Save a query', '#/queries'],
      ['Make a key', '#/keys'],
    ]);
    // A fresh install's only connection is the bundled examples one.
    expect(await counts(page)).toMatchObject({ Connections: '1', 'Queries published': '0', 'Queries in draft': '0', 'API keys': '0' });
    await steps.getByRole('link', { name: 'Add a connection' }).click();
    await page.getByRole('heading', { name: 'Connections', level: 1 }).waitFor();
    expect(problems).toEqual([]);
  });

  it("counts what the API lists: connections, queries published and in draft, keys, today's runs and errors, alerts", async () => {
    const made = [
      await suite.origin.call('POST', '/api/v1/connections', { name: 'memory', db: 'duckdb' }, admin),
      await suite.origin.call('POST', '/api/v1/queries', { name: 'numbers', sql: 'SELECT i FROM range(:n) t(i)', connection_name: 'memory', parameters: { n: { type: 'int' } }, publish: true }, admin),
      await suite.origin.call('POST', '/api/v1/queries', { name: 'broken', sql: 'SELECT * FROM no_such_table', connection_name: 'memory', publish: true }, admin),
      await suite.origin.call('POST', '/api/v1/queries', { name: 'sketch', sql: 'SELECT 1 AS one', connection_name: 'memory' }, admin),
      await suite.origin.call('POST', '/api/v1/api-keys', { name: 'reader', queries: ['numbers'] }, admin),
    ];
    expect(made.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect((await suite.origin.call('GET', '/q/numbers?n=2', undefined, admin)).status).toBe(200);
    expect((await suite.origin.call('GET', '/q/numbers?n=3', undefined, admin)).status).toBe(200);
    expect((await suite.origin.call('GET', '/q/broken', undefined, admin)).status).toBeGreaterThanOrEqual(400);
    const usage = await suite.origin.call('GET', '/api/v1/usage/quotas', undefined, admin);
    const runs = (usage.body.callers as Array<{ day?: { calls?: number } }>).reduce((n, c) => n + (c.day?.calls ?? 0), 0);
    const errors = await suite.origin.call('GET', '/api/v1/history?status=error', undefined, admin);
    const alerts = await suite.origin.call('GET', '/api/v1/alerts', undefined, admin);

    const { page, problems } = await watchedPage(suite.browser);
    await signIn(page, suite.origin.url, ADMIN_KEY);
    await openScreen(page, 'Overview');
    expect(await counts(page)).toEqual({
      Connections: '2',
      'Queries published': '2',
      'Queries in draft': '1',
      'API keys': '1',
      'Runs today': String(runs),
      'Errors today': String(errors.body.items.length),
      Alerts: String(alerts.body.alerts.length),
    });
    expect(runs).toBe(3);
    expect(errors.body.items).toHaveLength(1);
    expect(await page.getByRole('region', { name: 'Next steps' }).count()).toBe(0);
    await shot(page, 'overview');
    expect(problems).toEqual([]);
  });
});
