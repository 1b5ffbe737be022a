import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { launch, openScreen, settle, signIn, watchedPage } from './browser.ts';

/** The Metrics screen's charts (docs/reference/console.md): axes as text, units, a value per bar, a chosen window. */

const ADMIN_KEY = 'console-metrics-admin-key-0001';
const admin = { 'x-api-key': ADMIN_KEY };
let origin: Origin;
let browser: Browser;

beforeAll(async () => {
  [origin, browser] = await Promise.all([startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } }), launch()]);
  const made = [
    await origin.call('POST', '/api/v1/queries', { name: 'numbers', sql: 'SELECT i FROM range(:n) t(i)', connection_name: 'examples', parameters: { n: { type: 'int' } }, publish: true }, admin),
    await origin.call('POST', '/api/v1/queries', { name: 'broken', sql: 'SELECT * FROM no_such_table', connection_name: 'examples', publish: true }, admin),
  ];
  expect(made.map((r) => r.status)).toEqual([201, 201]);
  for (const n of [2, 3, 4]) expect((await origin.call('GET', `/q/numbers?n=${n}`, undefined, admin)).status).toBe(200);
  expect((await origin.call('GET', '/q/broken', undefined, admin)).status).toBeGreaterThanOrEqual(400);
});
afterAll(async () => {
  await browser?.close();
  await origin?.stop();
});

/** A chart's axis labels and its bars' titles, as SVG text. */
const read = (page: Page, metric: string) =>
  page.locator(`figure[data-metric="${metric}"] svg`).evaluate((svg) => ({
    time: [...svg.querySelectorAll('text[data-axis="time"]')].map((t) => t.textContent),
    value: [...svg.querySelectorAll('text[data-axis="value"]')].map((t) => t.textContent),
    unit: svg.querySelector('text[data-axis="unit"]')?.textContent,
    bars: [...svg.querySelectorAll('g[data-bucket] title')].map((t) => t.textContent!),
    label: svg.getAttribute('aria-label'),
  }));

const total = (titles: string[]) => titles.reduce((n, t) => n + Number(/: ([\d.]+) /.exec(t)![1]), 0);

describe('the metrics charts', () => {
  it('label their time and value axes, name their unit, title each bar with its value, over the window chosen', async () => {
    const { page, problems } = await watchedPage(browser);
    await signIn(page, origin.url, ADMIN_KEY);
    await openScreen(page, 'Metrics');
    const history = await origin.call('GET', '/api/v1/history', undefined, admin);
    const runs = history.body.items.length;
    expect(runs).toBe(4);

    let requests = await read(page, 'Requests');
    expect(requests.bars).toHaveLength(30);
    expect(requests.unit).toBe('runs per 2 min');
    expect(requests.time).toHaveLength(3);
    for (const t of requests.time) expect(t).toMatch(/^\d\d:\d\d$/);
    // The value axis runs from 0 to a round number at or above the tallest bar.
    expect(requests.value[1]).toBe('0');
    expect(requests.value[0]).toMatch(/^[125]0*$/);
    expect(Number(requests.value[0])).toBeGreaterThanOrEqual(Math.max(...requests.bars.map((t) => Number(/: (\d+) /.exec(t)![1]))));
    expect(total(requests.bars)).toBe(runs);
    expect(requests.bars.at(-1)).toMatch(/^\d\d:\d\d–\d\d:\d\d: \d+ runs per 2 min$/);
    expect(requests.label).toMatch(/^Requests in runs per 2 min, \d\d:\d\d to \d\d:\d\d: 4 runs/);

    await page.getByLabel('Window').selectOption({ label: 'Last 15 minutes' });
    await settle(page);
    requests = await read(page, 'Requests');
    expect(requests.bars).toHaveLength(15);
    expect(requests.unit).toBe('runs per 1 min');
    expect(total(requests.bars)).toBe(runs);
    const errors = await read(page, 'Errors');
    expect(total(errors.bars)).toBe(1);
    expect((await read(page, 'Latency')).unit).toBe('ms (mean)');
    expect(total((await read(page, 'Rows')).bars)).toBe(2 + 3 + 4);

    await page.getByLabel('Window').selectOption({ label: 'Last 24 hours' });
    await settle(page);
    requests = await read(page, 'Requests');
    expect(requests.bars).toHaveLength(48);
    // Over a day the two ends would read the same clock time: each label names its weekday.
    for (const t of requests.time) expect(t).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d\d:\d\d$/);
    expect(requests.time[0]).not.toBe(requests.time[2]);
    expect(requests.bars[0]).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d\d:\d\d–\d\d:\d\d: \d+ runs per 30 min$/);
    expect(problems).toEqual([]);
  });
});
