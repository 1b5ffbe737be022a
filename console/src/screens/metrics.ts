import { get, qs } from '../api.ts';
import { attempt, field, h, replace } from '../dom.ts';
import { timeChart } from './metrics-chart.ts';

/** The windows offered, each with a bucket that gives 15 to 48 bars. */
const WINDOWS = [
  { label: 'Last 15 minutes', minutes: 15, bucket: 1 },
  { label: 'Last hour', minutes: 60, bucket: 2 },
  { label: 'Last 6 hours', minutes: 360, bucket: 10 },
  { label: 'Last 24 hours', minutes: 1440, bucket: 30 },
];
/** Runs read per refresh at most: the history is paged 1000 at a time, newest first. */
const MAX_RUNS = 20_000;

interface Run {
  time: string;
  status: string;
  rows: number | null;
  duration_ms: number | null;
}

/**
 * Request rate, errors, latency and rows over a chosen window, from the
 * recorded runs (GET /api/v1/history: the workspace's runs the role may
 * read). Refreshes every 10 s while shown.
 */
export async function metricsScreen(view: HTMLElement): Promise<void> {
  const out = h('div', { class: 'charts' });
  const note = h('p', { class: 'muted' });
  const choice = h('select', { onchange: () => void draw() }, WINDOWS.map((w, i) => h('option', { value: i, selected: w.minutes === 60 }, w.label)));
  replace(view, h('h1', {}, 'Metrics'), h('div', { class: 'filters' }, field('Window', choice)), note, out);
  const draw = async () => {
    const span = WINDOWS[Number(choice.value)];
    const bucketMs = span.bucket * 60_000;
    const buckets = span.minutes / span.bucket;
    // Buckets end on the next whole bucket, so bars keep their place from one refresh to the next.
    const end = Math.ceil(Date.now() / bucketMs) * bucketMs;
    const start = end - buckets * bucketMs;
    const items: Run[] = [];
    let cursor: string | null = null;
    const ok = await attempt(out, async () => {
      do {
        const page: { items: Run[]; next_cursor: string | null } = await get(`/api/v1/history${qs({ since: new Date(start).toISOString(), limit: 1000, cursor })}`);
        items.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor && items.length < MAX_RUNS);
      return true;
    });
    if (!ok) return;
    const runs = new Array(buckets).fill(0);
    const errors = new Array(buckets).fill(0);
    const rows = new Array(buckets).fill(0);
    const ms = new Array(buckets).fill(0);
    for (const r of items) {
      const b = Math.floor((Date.parse(r.time) - start) / bucketMs);
      if (b < 0 || b >= buckets) continue;
      runs[b] += 1;
      if (r.status === 'error') errors[b] += 1;
      rows[b] += r.rows ?? 0;
      ms[b] += r.duration_ms ?? 0;
    }
    const total = runs.reduce((a, b) => a + b, 0);
    const meanMs = total ? ms.reduce((a, b) => a + b, 0) / total : 0;
    const per = `${span.bucket} min`;
    note.textContent = `One bar per ${per}, refreshed every 10 s; hover a bar for its value.${cursor ? ` Only the newest ${items.length} runs are drawn.` : ''}`;
    replace(
      out,
      timeChart({ title: 'Requests', unit: `runs per ${per}`, values: runs, summary: `${total} runs (${(total / span.minutes).toFixed(1)}/min)` }, start, bucketMs),
      timeChart({ title: 'Errors', unit: `errors per ${per}`, values: errors, summary: `${errors.reduce((a, b) => a + b, 0)} errors` }, start, bucketMs),
      timeChart({ title: 'Latency', unit: 'ms (mean)', values: ms.map((t, i) => (runs[i] ? t / runs[i] : 0)), summary: `${meanMs.toFixed(1)} ms mean` }, start, bucketMs),
      timeChart({ title: 'Rows', unit: `rows per ${per}`, values: rows, summary: `${rows.reduce((a, b) => a + b, 0)} rows` }, start, bucketMs),
    );
  };
  await draw();
  const timer = setInterval(() => (view.isConnected ? void draw() : clearInterval(timer)), 10_000);
}
