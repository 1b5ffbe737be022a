import { get, qs } from '../api.ts';
import { attempt, h, replace } from '../dom.ts';

const SVG = 'http://www.w3.org/2000/svg';
const MINUTES = 30;

function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** A small bar chart of one value per minute, with its total or mean. */
function chart(title: string, values: number[], summary: string): HTMLElement {
  const width = 300;
  const height = 80;
  const max = Math.max(1, ...values);
  const bar = width / values.length;
  const s = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `${title}: ${summary}`, class: 'chart' });
  s.appendChild(svg('line', { x1: 0, y1: height - 0.5, x2: width, y2: height - 0.5, class: 'axis' }));
  values.forEach((v, i) => {
    const bh = (v / max) * (height - 4);
    s.appendChild(svg('rect', { x: i * bar + 1, y: height - bh, width: Math.max(1, bar - 2), height: bh, class: 'bar' }));
  });
  return h('figure', { class: 'metric card', 'data-metric': title }, h('figcaption', {}, h('strong', {}, title), h('span', { class: 'value' }, summary)), s as unknown as Node);
}

/**
 * Request rate, errors, latency and rows for the last 30 minutes, one bar a
 * minute, from the recorded runs (GET /api/v1/history: the workspace's runs
 * the role may read). Refreshes every 10 s while shown.
 */
export async function metricsScreen(view: HTMLElement): Promise<void> {
  const out = h('div', { class: 'charts' });
  replace(view, h('h1', {}, 'Metrics'), h('p', { class: 'muted' }, `Runs per minute over the last ${MINUTES} minutes, refreshed every 10 s.`), out);
  const draw = async () => {
    const since = new Date(Date.now() - MINUTES * 60_000);
    const items: any[] = [];
    let cursor: string | null = null;
    const ok = await attempt(out, async () => {
      do {
        const page: { items: any[]; next_cursor: string | null } = await get(`/api/v1/history${qs({ since: since.toISOString(), limit: 500, cursor })}`);
        items.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor && items.length < 5000);
      return true;
    });
    if (!ok) return;
    const bucket = (r: any) => Math.min(MINUTES - 1, Math.floor((Date.parse(r.time) - since.getTime()) / 60_000));
    const runs = new Array(MINUTES).fill(0);
    const errors = new Array(MINUTES).fill(0);
    const rows = new Array(MINUTES).fill(0);
    const ms = new Array(MINUTES).fill(0);
    for (const r of items) {
      const b = bucket(r);
      if (b < 0) continue;
      runs[b] += 1;
      if (r.status === 'error') errors[b] += 1;
      rows[b] += r.rows ?? 0;
      ms[b] += r.duration_ms ?? 0;
    }
    const latency = ms.map((t, i) => (runs[i] ? t / runs[i] : 0));
    const total = items.length;
    const meanMs = total ? items.reduce((n, r) => n + (r.duration_ms ?? 0), 0) / total : 0;
    replace(
      out,
      chart('Requests', runs, `${total} runs (${(total / MINUTES).toFixed(1)}/min)`),
      chart('Errors', errors, `${errors.reduce((a, b) => a + b, 0)} errors`),
      chart('Latency', latency, `${meanMs.toFixed(1)} ms mean`),
      chart('Rows', rows, `${rows.reduce((a, b) => a + b, 0)} rows`),
    );
  };
  await draw();
  const timer = setInterval(() => (view.isConnected ? void draw() : clearInterval(timer)), 10_000);
}
