import { describe, expect, it } from 'vitest';
import { consoleSuite, settle, signIn, watchedPage } from './browser.ts';

const ADMIN_KEY = 'console-sign-in-admin-key-0001';
const suite = consoleSuite(ADMIN_KEY);

describe('console sign-in', () => {
  it('calls nothing before sign-in but the page and its assets', async () => {
    const { page, problems, requests } = await watchedPage(suite.browser);
    await page.goto(`${suite.origin.url}/console`);
    await page.getByLabel('Admin key or administrator token').waitFor();
    await page.waitForTimeout(300);
    expect(requests.every((r) => r === 'GET /console' || r.startsWith('GET /console/assets/'))).toBe(true);
    expect(problems).toEqual([]);
  });

  it('refuses a wrong key with a visible message naming the code and request id', async () => {
    const { page } = await watchedPage(suite.browser);
    await page.goto(`${suite.origin.url}/console`);
    await page.getByLabel('Admin key or administrator token').fill('not-the-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await expect(alert.textContent()).resolves.toContain('refused');
    const text = (await alert.textContent())!;
    expect(text).toContain('unauthorized');
    expect(text).toMatch(/request_id \S+/);
    expect(await page.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);
  });

  it('keeps the key in sessionStorage only, never the URL or localStorage, and forgets it on sign-out', async () => {
    const { page, problems } = await watchedPage(suite.browser);
    await signIn(page, suite.origin.url, ADMIN_KEY);
    // The home screen drawn first: a reload or sign-out would otherwise abort its requests, which is no failure of the server.
    await settle(page);
    expect(await page.getByTestId('who').textContent()).toContain('(admin key)');
    const stored = await page.evaluate(() => ({ session: Object.values(sessionStorage), local: Object.values(localStorage), url: location.href }));
    expect(stored.session).toContain(ADMIN_KEY);
    expect(stored.local.join()).not.toContain(ADMIN_KEY);
    expect(stored.url).not.toContain(ADMIN_KEY);
    // A reload keeps the tab signed in.
    await page.reload();
    await settle(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('Signed out.').waitFor();
    expect(await page.evaluate(() => Object.values(sessionStorage).join())).not.toContain(ADMIN_KEY);
    await page.reload();
    await page.getByLabel('Admin key or administrator token').waitFor();
    expect(problems).toEqual([]);
  });
});
