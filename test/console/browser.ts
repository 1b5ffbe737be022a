import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, type Page, chromium } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';

/** Debian's chromium (scripts/services.sh installs it); never a downloaded browser. */
function chromiumPath(): string {
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('chromium is not installed: run `bash scripts/services.sh` (apt-get install chromium)');
  }
}

export async function launch(): Promise<Browser> {
  // As root, chromium's sandbox cannot start; the pages are our own console on loopback.
  return chromium.launch({ executablePath: chromiumPath(), args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
}

/** A test file's origin (`adminKey` its server key) and browser, started before its tests and stopped after them. */
export function consoleSuite(adminKey: string): { readonly origin: Origin; readonly browser: Browser } {
  const suite = {} as { origin: Origin; browser: Browser };
  beforeAll(async () => {
    [suite.origin, suite.browser] = await Promise.all([startOrigin({ env: { SLUICE_API_KEY: adminKey } }), launch()]);
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.origin?.stop();
  });
  return suite;
}

/** The pictures in README and docs/reference/console.md. */
const SHOTS = fileURLToPath(new URL('../../docs/console/', import.meta.url));

/**
 * Takes a screenshot every run (the page must render to one), but writes it
 * over the docs' picture only with SLUICE_CONSOLE_SHOTS=1, so a test run
 * leaves the tree as it found it.
 */
export async function shot(page: Page, name: string): Promise<void> {
  if (process.env.SLUICE_CONSOLE_SHOTS !== '1') {
    await page.screenshot();
    return;
  }
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}${name}.png` });
}

export interface Watched {
  page: Page;
  /** Console errors, uncaught exceptions, failed requests and 4xx/5xx answers, as they happened. */
  problems: string[];
  /** Every URL the page requested. */
  requests: string[];
}

/** A page whose console errors and failed requests are collected, at 1280×800 unless told. */
export async function watchedPage(browser: Browser, viewport = { width: 1280, height: 800 }): Promise<Watched> {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`exception: ${e.message}`));
  page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
  page.on('requestfailed', (r) => {
    // Leaving a screen ends its /events stream: that is not a failure.
    if (!new URL(r.url()).pathname.endsWith('/events')) problems.push(`failed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`);
  });
  page.on('response', (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`));
  return { page, problems, requests };
}

export async function signIn(page: Page, baseUrl: string, secret: string): Promise<void> {
  await page.goto(`${baseUrl}/console`);
  await page.getByLabel('Admin key or administrator token').fill(secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Opens a screen from the navigation and waits until nothing shows progress. */
export async function openScreen(page: Page, title: string): Promise<void> {
  await page.locator('nav.side').getByRole('link', { name: title, exact: true }).click();
  await settle(page);
}

/** Waits until the screen has drawn and shows no progress (a stream such as /events never lets the network go idle). */
export async function settle(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const screen = document.querySelector('section.screen');
    return screen !== null && screen.childElementCount > 0 && document.querySelectorAll('.progress').length === 0;
  });
  await page.waitForTimeout(200);
}

/** A new watched page, signed in with `secret`, on saved query `query`'s Run tab. */
export async function openQueryRun(browser: Browser, baseUrl: string, secret: string, query: string): Promise<Watched> {
  const watched = await watchedPage(browser);
  await signIn(watched.page, baseUrl, secret);
  await watched.page.goto(`${baseUrl}/console#/queries/${query}`);
  await settle(watched.page);
  await watched.page.getByRole('tab', { name: 'Run' }).click();
  return watched;
}
