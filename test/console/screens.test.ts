import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { launch, openScreen, settle, shot, signIn, watchedPage } from './browser.ts';

const ADMIN_KEY = 'console-screens-admin-key-0001';
/** Every screen in the navigation, as an owner sees it. */
const SCREENS = ['Overview', 'Connections', 'Saved queries', 'Collections', 'API keys', 'Roles', 'History', 'Metrics', 'Live runs', 'Destinations', 'Exports', 'Cache', 'Audit log', 'Alerts', 'Administrators', 'Workspaces', 'Configuration', 'Settings'];
/** Controls that change something: an auditor is offered none of them. */
const WRITE_CONTROLS = /^(New .*|Edit.*|Import descriptions|Delete.*|Remove|Revoke|Rotate|Test|Publish|Unpublish|Roll back.*|Save.*|Evict.*|Rename|Run now|Rewind|Issue token|New version|Run|Apply|Dry run|Load current|Check|Forget…|Add or change|Install examples|Remove examples)$/;

let origin: Origin;
let browser: Browser;
let auditorToken: string;
let exampleQuery: string;
const exportDir = mkdtempSync(join(tmpdir(), 'sluice-console-exports-'));

beforeAll(async () => {
  [origin, browser] = await Promise.all([startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY, SLUICE_EXPORT_DIRS: exportDir } }), launch()]);
  const admin = { 'x-api-key': ADMIN_KEY };
  expect((await origin.call('POST', '/api/v1/administrators', { name: 'ada', role: 'auditor' }, admin)).status).toBe(201);
  const token = await origin.call('POST', '/api/v1/administrators/ada/tokens', { label: 'console test' }, admin);
  expect(token.status).toBe(201);
  auditorToken = token.body.secret;
  // Something on each screen: a connection, a query in a collection, a role, a key from it.
  // A cached query answered once, a local export of it, a second workspace.
  const made = [
    await origin.call('POST', '/api/v1/connections', { name: 'memory', db: 'duckdb' }, admin),
    await origin.call('POST', '/api/v1/queries', { name: 'numbers', sql: 'SELECT i FROM range(:n) t(i)', connection_name: 'memory', parameters: { n: { type: 'int', max: 100 } }, collection: 'reports', cache_ttl: 600, publish: true }, admin),
    await origin.call('POST', '/api/v1/roles', { name: 'report-readers', collections: ['reports'] }, admin),
    await origin.call('POST', '/api/v1/api-keys', { name: 'reports-key', role: 'report-readers' }, admin),
    await origin.call('POST', '/api/v1/destinations', { name: 'archive', url: exportDir }, admin),
    await origin.call('POST', '/api/v1/exports', { name: 'numbers-file', query: 'numbers', params: { n: 5 }, format: 'csv', destination: 'archive' }, admin),
    await origin.call('POST', '/api/v1/workspaces', { name: 'team' }, admin),
    await origin.call('POST', '/api/v1/connections', { name: 'scratch', db: 'duckdb' }, admin),
  ];
  expect(made.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201, 201, 201]);
  expect((await origin.call('GET', '/q/numbers?n=3', undefined, admin)).status).toBe(200);
  exampleQuery = 'numbers';
});
afterAll(async () => {
  await browser?.close();
  await origin?.stop();
  rmSync(exportDir, { recursive: true, force: true });
});

async function writeControls(page: Page): Promise<string[]> {
  const names = await page.locator('main button, main a.button').allTextContents();
  return names.map((n) => n.trim()).filter((n) => WRITE_CONTROLS.test(n));
}

/** Opens every screen, a query's every tab and a connection's schema; returns the write controls seen on each. */
async function visitAll(page: Page): Promise<Record<string, string[]>> {
  const seen: Record<string, string[]> = {};
  for (const title of SCREENS) {
    await openScreen(page, title);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    seen[title] = await writeControls(page);
  }
  await page.goto(`${origin.url}/console#/queries/${encodeURIComponent(exampleQuery)}`);
  await settle(page);
  for (const tab of await page.getByRole('tab').allTextContents()) {
    await page.getByRole('tab', { name: tab }).click();
    await settle(page);
    seen[`query ${tab}`] = await writeControls(page);
  }
  await openScreen(page, 'Connections');
  await page.getByRole('link', { name: 'Schema' }).first().click();
  await page.getByRole('heading', { name: /^Schema of / }).waitFor();
  await settle(page);
  seen.schema = await writeControls(page);
  await page.goto(`${origin.url}/console#/administrators/ada`);
  await settle(page);
  seen.tokens = await writeControls(page);
  return seen;
}

// The owner's and auditor's walks through every screen take 20-40 s on 2 busy cores: a wider limit than the suite's 60 s.
describe('every console screen', () => {
  it('renders for an owner without a console error or a failed request, with its write controls', async () => {
    const { page, problems } = await watchedPage(browser);
    await signIn(page, origin.url, ADMIN_KEY);
    const seen = await visitAll(page);
    expect(problems).toEqual([]);
    expect(seen.Connections).toContain('New connection');
    expect(seen['Saved queries']).toContain('New query');
    expect(seen['API keys']).toEqual(expect.arrayContaining(['New key', 'Revoke', 'Rotate']));
    expect(seen['query Versions']).toContain('Delete query');
    expect(seen.schema).toEqual(expect.arrayContaining(['Import descriptions', 'Edit notes']));
    expect(seen.Destinations).toContain('Edit');
    expect(seen.Exports).toEqual(expect.arrayContaining(['Edit', 'Rewind']));
    expect(Object.keys(seen)).toContain('query Run');
    await openScreen(page, 'Audit log');
    await page.getByRole('button', { name: 'Verify chain' }).click();
    expect(await page.getByTestId('verdict').textContent()).toMatch(/^Chain intact/);
    await shot(page, 'audit');
    await openScreen(page, 'API keys');
    await shot(page, 'keys');

    // The examples tour: installed from the overview, each key's secret shown once.
    await openScreen(page, 'Overview');
    await page.getByRole('button', { name: 'Install examples' }).click();
    for (let shown = 0; shown < 10 && !(await page.getByTestId('examples-status').getByText(/^Loaded/).isVisible()); shown++) {
      await page.getByRole('button', { name: 'Done' }).click({ timeout: 5000 }).catch(() => undefined);
    }
    await page.getByTestId('examples-status').getByText(/^Loaded: \d+ queries/).waitFor();

    // An API error shows its code and request id.
    await openScreen(page, 'Connections');
    await page.getByRole('button', { name: 'New connection' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('memory');
    await page.getByRole('dialog').getByLabel('Type').selectOption('duckdb');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    const error = page.getByRole('dialog').getByRole('alert');
    await error.getByText('connection_exists').waitFor();
    expect(await error.textContent()).toMatch(/HTTP 409 · code connection_exists · request_id \S+/);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    // That refusal was the point: only it is taken off the list of problems.
    const refusal = (p: string) => p.startsWith('HTTP 409') || p.includes('status of 409');
    expect(problems.filter(refusal)).toHaveLength(2);
    problems.splice(0, problems.length, ...problems.filter((p) => !refusal(p)));

    // Delete with a reason: the connection moves to the deleted list.
    await page.getByRole('row', { name: /scratch/ }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByLabel(/^Reason/).fill('no longer used');
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('table', { name: 'Deleted connections' }).getByRole('cell', { name: 'scratch' }).waitFor();

    // Rotate: a new secret, shown once.
    await openScreen(page, 'API keys');
    await page.getByRole('row', { name: /reports-key/ }).getByRole('button', { name: 'Rotate' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate' }).click();
    expect((await page.getByTestId('secret').textContent())!.length).toBeGreaterThan(20);
    await page.getByRole('button', { name: 'Done' }).click();

    // Edit a key's grants and switch it off; edit a role's grants.
    await page.getByRole('row', { name: /reports-key/ }).getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('dialog').getByLabel('Queries').fill('numbers');
    await page.getByRole('dialog').getByLabel('Active').uncheck();
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /reports-key/ }).getByRole('cell', { name: 'no', exact: true }).waitFor();
    await openScreen(page, 'Roles');
    await page.getByRole('row', { name: /report-readers/ }).getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('dialog').getByLabel('Queries').fill('numbers');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.getByRole('row', { name: /report-readers/ }).getByRole('cell', { name: 'numbers', exact: true }).waitFor();

    // Destinations and exports: test, run now, the run listed.
    await openScreen(page, 'Destinations');
    await page.getByRole('button', { name: 'Test' }).click();
    await page.getByText('Test of archive passed').waitFor();
    await openScreen(page, 'Exports');
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.getByText('Run success: 5 rows').waitFor();
    await page.getByRole('button', { name: 'Runs' }).click();
    await page.getByRole('dialog').getByRole('cell', { name: 'success' }).waitFor();
    await page.keyboard.press('Escape');

    // A new destination (tested before saving) and a new export to it.
    await openScreen(page, 'Destinations');
    await page.getByRole('button', { name: 'New destination' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('spare');
    await page.getByRole('dialog').getByLabel('URL').fill(join(exportDir, 'spare'));
    await page.getByRole('dialog').getByRole('button', { name: 'Test' }).click();
    await page.getByRole('dialog').getByText('Test passed').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'spare', exact: true }).waitFor();
    await openScreen(page, 'Exports');
    await page.getByRole('button', { name: 'New export' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('numbers-spare');
    await page.getByRole('dialog').getByLabel('Query (published)').selectOption('numbers');
    await page.getByRole('dialog').getByLabel('Destination').selectOption('spare');
    await page.getByRole('dialog').getByLabel('Format').selectOption('ndjson');
    await page.getByRole('dialog').getByLabel('Parameters (JSON)').fill('{"n": 2}');
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await page.getByRole('cell', { name: 'numbers-spare', exact: true }).waitFor();

    // The query's cached answer, on its page.
    await page.goto(`${origin.url}/console#/queries/numbers`);
    await settle(page);
    await page.getByRole('tab', { name: 'Cache' }).click();
    await page.getByRole('table', { name: 'Cache entries' }).getByRole('cell', { name: 'numbers' }).waitFor();

    // A second version as a draft, then deleted on its own.
    await page.getByRole('tab', { name: 'New version' }).click();
    await page.getByRole('textbox', { name: 'SQL' }).fill('SELECT i, i + 1 AS next FROM range(:n) t(i)');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('cell', { name: 'v2' }).waitFor();
    await page.getByRole('row', { name: /v2/ }).getByRole('button', { name: 'Delete version' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Deleted v2.').waitFor();
    // The notice shows before the versions table is drawn again; wait for the row to go.
    await page.getByRole('cell', { name: 'v2' }).waitFor({ state: 'detached' });

    // Owners only: members of a workspace, the passwords' rekey check, forgetting a caller.
    await openScreen(page, 'Workspaces');
    await page.getByRole('row', { name: /team/ }).getByRole('button', { name: 'Members' }).click();
    await page.getByRole('dialog').getByLabel('Administrator').fill('ada');
    await page.getByRole('dialog').getByLabel('Role').selectOption('developer');
    await page.getByRole('dialog').getByRole('button', { name: 'Add or change' }).click();
    await page.getByRole('dialog').getByRole('cell', { name: 'developer' }).waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    await openScreen(page, 'Settings');
    await page.getByText('Stored passwords: check and rekey').click();
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByTestId('rekey').waitFor();
    await openScreen(page, 'History');
    await page.getByText('Forget a caller').click();
    await page.getByLabel('Caller (key or administrator name)').fill('reports-key');
    await page.getByRole('button', { name: 'Forget…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Forget' }).click();
    await page.getByText(/^Forgotten: \d+ runs/).waitFor();

    // Configuration as code: the current state exported, diffed against itself, dry-run applied.
    await openScreen(page, 'Configuration');
    await page.getByRole('button', { name: 'Load current' }).click();
    await expect.poll(() => page.getByLabel('Configuration file').inputValue()).toContain('numbers');
    await page.getByRole('button', { name: 'Diff' }).click();
    // The server's own export is no drift: at most objects only to take under management.
    await expect.poll(() => page.getByTestId('config-verdict').textContent()).toMatch(/^No changes: the target already matches the file/);
    expect(await page.getByTestId('config-result').textContent()).toContain('(unchanged; becomes managed)');
    await page.getByRole('button', { name: 'Dry run' }).click();
    await page.getByRole('heading', { name: 'Dry run' }).waitFor();
    await shot(page, 'configuration');

    // The workspace switcher: calls then go to /w/team/api/v1/...
    await page.getByRole('combobox', { name: 'Workspace' }).selectOption('team');
    // The switch ends on the overview once /api/v1/me answers: a screen opened before that would be drawn over.
    await page.waitForFunction(() => document.title.startsWith('Overview') && location.hash === '#/');
    await settle(page);
    await openScreen(page, 'Connections');
    // Under a full suite's load this screen has once taken past the default 30 s to show (2026-11-28).
    await page.getByText('No connections yet.').waitFor({ timeout: 90_000 });
    expect(problems).toEqual([]);
  }, 240_000);

  it('renders for an auditor with no write control on any screen', async () => {
    const { page, problems } = await watchedPage(browser);
    await signIn(page, origin.url, auditorToken);
    expect(await page.getByTestId('who').textContent()).toContain('ada · auditor');
    const seen = await visitAll(page);
    expect(problems).toEqual([]);
    // Everyone manages their own sign-in tokens; nothing else.
    expect(Object.fromEntries(Object.entries(seen).filter(([, controls]) => controls.length > 0))).toEqual({ tokens: ['Issue token', 'Revoke'] });
    expect(Object.keys(seen)).not.toContain('query Run');
    expect(Object.keys(seen)).not.toContain('query New version');
  }, 240_000);

  it('pages a long list 25 rows at a time', async () => {
    for (let i = 0; i < 30; i++) {
      expect((await origin.call('POST', '/api/v1/roles', { name: `paging-${String(i).padStart(2, '0')}` }, { 'x-api-key': ADMIN_KEY })).status).toBe(201);
    }
    const { page, problems } = await watchedPage(browser);
    await signIn(page, origin.url, ADMIN_KEY);
    await openScreen(page, 'Roles');
    const rows = page.getByRole('table', { name: 'Roles' }).locator('tbody tr');
    expect(await rows.count()).toBe(25);
    // 30 made here, and those the other tests made (a role, the examples tour's).
    const items = Number(/Page 1 of 2 · (\d+) items/.exec((await page.getByText(/^Page 1 of 2 · \d+ items$/).textContent())!)![1]);
    expect(items).toBeGreaterThanOrEqual(31);
    await page.getByRole('button', { name: 'Next ›' }).click();
    await page.getByText(`Page 2 of 2 · ${items} items`).waitFor();
    expect(await rows.count()).toBe(items - 25);
    expect(await page.getByRole('button', { name: 'Next ›' }).isDisabled()).toBe(true);
    expect(problems).toEqual([]);
  });

  it('shows every settings row as GET /api/v1/settings gives it, column by column', async () => {
    const api = await origin.call('GET', '/api/v1/settings', undefined, { 'x-api-key': ADMIN_KEY });
    const sections = api.body.sections as Array<{ title: string; rows: Array<{ variable: string; value: string | null; source: string; env_value: string | null }> }>;
    const { page, problems } = await watchedPage(browser);
    await signIn(page, origin.url, ADMIN_KEY);
    await openScreen(page, 'Settings');
    for (const section of sections) {
      const table = page.getByRole('table', { name: section.title });
      if (!(await table.isVisible())) await page.locator('summary', { hasText: section.title }).click();
      const shown = await table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)));
      expect(shown, section.title).toEqual(section.rows.map((r) => [r.variable, r.value ?? '—', r.source, r.env_value ?? '—']));
    }
    expect(problems).toEqual([]);
  });

  it('shows runs live as they happen', async () => {
    const { page, problems } = await watchedPage(browser);
    await signIn(page, origin.url, ADMIN_KEY);
    await openScreen(page, 'Live runs');
    await page.getByText('Connected').waitFor();
    expect((await origin.call('GET', '/q/numbers?n=7', undefined, { 'x-api-key': ADMIN_KEY })).status).toBe(200);
    await page.getByRole('table', { name: 'Live runs' }).getByRole('cell', { name: 'numbers' }).first().waitFor();
    await openScreen(page, 'Overview');
    expect(problems).toEqual([]);
  });

  it('works in the dark theme and at phone width, the navigation behind a menu button', async () => {
    const { page, problems } = await watchedPage(browser, { width: 390, height: 844 });
    await signIn(page, origin.url, ADMIN_KEY);
    await page.getByRole('button', { name: 'Dark theme' }).click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await page.locator('nav.side').isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.locator('nav.side').getByRole('link', { name: 'Saved queries' }).click();
    await settle(page);
    expect(await page.locator('nav.side').isVisible()).toBe(false);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await shot(page, 'phone-dark');
    expect(problems).toEqual([]);
  });

  it('is keyboard navigable: Tab reaches the navigation and Enter opens a screen', async () => {
    const { page } = await watchedPage(browser);
    await signIn(page, origin.url, ADMIN_KEY);
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.textContent)) === 'History') break;
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'History', level: 1 }).waitFor();
    expect(await page.evaluate(() => location.hash)).toBe('#/history');
  });

  it('cancels an open dialog when the address moves to another screen (Back)', async () => {
    const { page, problems } = await watchedPage(browser);
    await signIn(page, origin.url, ADMIN_KEY);
    await openScreen(page, 'Roles');
    await openScreen(page, 'API keys');
    await page.getByRole('button', { name: 'New key' }).click();
    await page.getByRole('dialog').waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'Roles', level: 1 }).waitFor();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(problems).toEqual([]);
  });
});
