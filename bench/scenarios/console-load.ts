import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import type { Scenario } from '../lib/context.ts';
import { startBenchOrigin } from '../lib/origin.ts';
import type { Figure } from '../lib/report.ts';

const ADMIN_KEY = 'bench-console-admin-key-0001';
const GOAL_MS = 1000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The web console's first load over loopback in Debian's chromium, an empty
 * cache each time: until the sign-in form takes input, and, signed in (the
 * key already in the tab's sessionStorage), until the first screen is drawn
 * from `/api/v1/me`. Baseline: the origin's /docs page (one HTML page with its
 * own script) loaded the same way until its DOM is ready.
 */
export const consoleLoad: Scenario = {
  name: 'console-load',
  async run(ctx) {
    const origin = await startBenchOrigin(ctx.workDir, 'console', { env: { SLUICE_API_KEY: ADMIN_KEY }, store: 'embedded' });
    const executablePath = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
    const browser = await chromium.launch({ executablePath, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
    const samples = { signInForm: [] as number[], signedIn: [] as number[], docs: [] as number[], transferred: 0 };
    try {
      const rounds = Math.max(5, ctx.runs * 3);
      for (let i = 0; i < rounds + 1; i++) {
        // The first round warms the origin (its files read once) and is not counted.
        const record = i > 0;
        for (const kind of ['docs', 'signInForm', 'signedIn'] as const) {
          const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
          if (kind === 'signedIn') await context.addInitScript((key) => sessionStorage.setItem('sluice.console.key', key), ADMIN_KEY);
          const page = await context.newPage();
          let bytes = 0;
          page.on('response', (r) => void r.body().then((b) => (bytes += b.length), () => undefined));
          const t0 = performance.now();
          if (kind === 'docs') {
            await page.goto(`${origin.url}/docs`, { waitUntil: 'domcontentloaded' });
          } else {
            await page.goto(`${origin.url}/console`, { waitUntil: 'commit' });
            if (kind === 'signInForm') await page.waitForFunction(() => document.activeElement?.getAttribute('type') === 'password');
            else await page.getByRole('heading', { name: /^Signed in as/ }).waitFor();
          }
          const ms = performance.now() - t0;
          if (record) samples[kind].push(ms);
          if (record && kind === 'signInForm') samples.transferred = bytes;
          await context.close();
        }
      }
    } finally {
      await browser.close();
      await origin.stop();
    }
    const docs = median(samples.docs);
    const figure = (name: string, value: number): Figure => ({
      name,
      value,
      unit: 'ms',
      baselineName: '/docs page, DOM ready',
      baseline: docs,
      ratio: Math.round((value / docs) * 100) / 100,
      goal: { text: `interactive under ${GOAL_MS} ms`, met: value < GOAL_MS },
    });
    return {
      scenario: 'console-load',
      title: 'The web console\'s first load over loopback',
      method: [
        'Debian chromium through playwright-core, a new browser context (empty cache) for every load, 1280x800, origin on the embedded store on the same machine.',
        'Sign-in form: from navigation to the key field focused (script run, page drawn). Signed in: the key put in sessionStorage before the page runs; from navigation to the overview drawn from GET /api/v1/me.',
        `Baseline: the origin's /docs page to DOMContentLoaded. Medians of the counted rounds after one warm-up round.`,
      ],
      figures: [figure('sign-in form interactive', median(samples.signInForm)), figure('signed-in overview drawn', median(samples.signedIn))],
      notes: [`Bytes received for the sign-in page (HTML, script, style): ${samples.transferred}.`],
      samples,
    };
  },
};
