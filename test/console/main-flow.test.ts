import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { type Receiver, startReceiver } from '../harness/otlp-receiver.ts';
import { launch, openScreen, settle, shot, signIn, watchedPage } from './browser.ts';

const ADMIN_KEY = 'console-main-flow-admin-key-0001';
/** Where history links a run's trace: runs are traced, to a receiver on loopback. */
const TRACE_URL = 'http://traces.example/trace/{trace_id}?from=sluice';
let origin: Origin;
let browser: Browser;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  const env = { SLUICE_API_KEY: ADMIN_KEY, SLUICE_TRACE_URL: TRACE_URL, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' };
  [origin, browser] = await Promise.all([startOrigin({ env }), launch()]);
});
afterAll(async () => {
  await browser?.close();
  await origin?.stop();
  await receiver?.stop();
});

describe('console main flow', () => {
  it('signs in, creates a connection and a query, publishes it, makes a key for it, sees its run, and revokes the key', async () => {
    const { page, problems } = await watchedPage(browser);
    await signIn(page, origin.url, ADMIN_KEY);

    // A connection.
    await openScreen(page, 'Connections');
    await page.getByRole('button', { name: 'New connection' }).click();
    const form = page.getByRole('dialog');
    await form.getByLabel('Name').fill('console duck');
    await form.getByLabel('Type').selectOption('duckdb');
    await form.getByRole('button', { name: 'Test' }).click();
    await form.getByText('Test passed').waitFor();
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('link', { name: 'console duck' }).first().waitFor();
    await settle(page);
    await shot(page, 'connections');

    // A query with a parameter: Validate adds the undeclared marker as a row to type.
    await openScreen(page, 'Saved queries');
    await page.getByRole('link', { name: 'New query' }).click();
    await page.getByLabel('Name', { exact: true }).fill('doubles');
    await page.getByLabel('Connection').selectOption('console duck');
    await page.getByLabel('Description').fill('Numbers and their doubles');
    await page.getByRole('textbox', { name: 'SQL' }).fill('SELECT i, i * 2 AS doubled -- twice\nFROM range(:n) t(i)\nORDER BY i');
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.getByTestId('validation').waitFor();
    expect(await page.getByLabel('Parameter name').inputValue()).toBe('n');
    await page.getByRole('combobox', { name: 'Type' }).selectOption('int');
    await page.getByLabel('Max', { exact: true }).fill('100');
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.getByTestId('validation').getByText('Valid.').waitFor();
    await shot(page, 'query-editor');
    await page.getByRole('button', { name: 'Save draft' }).click();

    // Publish from the versions.
    await page.getByRole('heading', { name: 'doubles' }).waitFor();
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('Published: v1').waitFor();

    // Run with the parameter form; the results grid pages.
    await page.getByRole('tab', { name: 'Run' }).click();
    await page.getByLabel('n', { exact: true }).fill('12');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByTestId('results').waitFor();
    expect(await page.getByTestId('results').locator('tbody tr').count()).toBe(10);
    await page.getByRole('button', { name: 'Next ›' }).click();
    await page.getByText('Page 2').waitFor();
    expect(await page.getByTestId('results').locator('tbody tr').count()).toBe(2);
    await shot(page, 'query-run');

    // The whole answer as a stored result: progress, then a link per chunk that needs no key.
    await page.getByLabel('Download format').selectOption('csv');
    await page.getByRole('button', { name: 'Run as a result' }).click();
    await page.getByText(/^Result ready: 12 rows in 1 chunk\./).waitFor();
    const chunk = page.getByRole('list', { name: 'Result chunks' }).getByRole('link', { name: 'Chunk 0' });
    const href = (await chunk.getAttribute('href'))!;
    expect(new URL(href).hostname).toBe('127.0.0.1');
    const stored = await fetch(href);
    expect(stored.status).toBe(200);
    expect((await stored.text()).split('\r\n').slice(0, 3)).toEqual(['i,doubled', '0,0', '1,2']);

    // A key limited to the query; its secret shown once.
    await openScreen(page, 'API keys');
    await page.getByRole('button', { name: 'New key' }).click();
    const keyForm = page.getByRole('dialog');
    await keyForm.getByLabel('Name').fill('doubles-reader');
    await keyForm.getByRole('checkbox', { name: 'doubles', exact: true }).check();
    await keyForm.getByRole('button', { name: 'Create' }).click();
    const secret = (await page.getByTestId('secret').textContent())!.trim();
    expect(secret.length).toBeGreaterThan(20);
    await page.getByRole('button', { name: 'Done' }).click();
    // The keys screen also shows usage by caller: look in the keys' own table.
    const keys = page.getByRole('table', { name: 'API keys' });
    await keys.getByRole('cell', { name: 'doubles-reader' }).waitFor();
    expect(await keys.textContent()).not.toContain(secret);

    // Outside the browser: the key runs the query, and only that one.
    const run = await fetch(`${origin.url}/q/doubles?n=3`, { headers: { 'x-api-key': secret } });
    expect(run.status).toBe(200);
    const traceId = run.headers.get('traceresponse')!.split('-')[1]!;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(await run.json()).toEqual([{ i: 0, doubled: 0 }, { i: 1, doubled: 2 }, { i: 2, doubled: 4 }]);

    // The run in history, its trace linked to SLUICE_TRACE_URL in a new tab, and in the metrics.
    await openScreen(page, 'History');
    await page.getByTestId('history').getByRole('cell', { name: 'doubles-reader' }).first().waitFor();
    const trace = page.getByTestId('history').getByRole('row', { name: /doubles-reader/ }).getByRole('link', { name: traceId });
    expect(await trace.getAttribute('href')).toBe(`http://traces.example/trace/${traceId}?from=sluice`);
    expect(await trace.getAttribute('target')).toBe('_blank');
    expect(await trace.getAttribute('rel')).toBe('noopener noreferrer');
    await shot(page, 'history');
    await openScreen(page, 'Metrics');
    const requests = await page.locator('figure[data-metric="Requests"] .value').textContent();
    expect(Number(/(\d+) runs/.exec(requests!)![1])).toBeGreaterThanOrEqual(3);
    await shot(page, 'metrics');

    // Revoke: the next call fails.
    await openScreen(page, 'API keys');
    await keys.getByRole('row', { name: /doubles-reader/ }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Revoked doubles-reader.').waitFor();
    const after = await fetch(`${origin.url}/q/doubles?n=3`, { headers: { 'x-api-key': secret } });
    expect(after.status).toBe(401);

    expect(problems).toEqual([]);
  }, 240_000);
});
