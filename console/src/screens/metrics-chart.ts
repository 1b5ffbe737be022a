import { h } from '../dom.ts';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 340;
const HEIGHT = 150;
const PAD = { left: 44, right: 8, top: 10, bottom: 22 };

function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** The top of the value axis: the next 1, 2 or 5 times a power of ten, so its label is a round number. */
export function niceCeil(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].find((step) => step * power >= value) ?? 10) * power;
}

const clock = (t: number) => new Date(t).toTimeString().slice(0, 5);
/** A time with its weekday (`Sat 14:05`), once a chart spans a day: its two ends would otherwise read the same. */
const dayClock = (t: number) => `${new Date(t).toDateString().slice(0, 3)} ${clock(t)}`;
const DAY_MS = 86_400_000;
const figure = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1));

export interface Series {
  title: string;
  /** What one value counts, e.g. "runs" or "ms". */
  unit: string;
  values: number[];
  summary: string;
}

/**
 * A bar chart over time: a time axis with clock labels at its ends and middle
 * (with the weekday over a day or more),
 * a value axis from 0 to a round top with the unit, a title on each bar
 * (shown on hover, read by a screen reader) with its time span and value.
 * The labels are SVG text, not a picture, so they are read as text.
 */
export function timeChart(series: Series, start: number, bucketMs: number): HTMLElement {
  const { values } = series;
  const top = niceCeil(Math.max(...values, 0));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const bar = plotW / values.length;
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  const when = values.length * bucketMs >= DAY_MS ? dayClock : clock;
  const s = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'group', 'aria-label': `${series.title} in ${series.unit}, ${when(start)} to ${when(start + values.length * bucketMs)}: ${series.summary}`, class: 'chart' });
  s.append(
    svg('line', { x1: PAD.left, y1: PAD.top + plotH + 0.5, x2: WIDTH - PAD.right, y2: PAD.top + plotH + 0.5, class: 'axis' }),
    svg('line', { x1: PAD.left - 0.5, y1: PAD.top, x2: PAD.left - 0.5, y2: PAD.top + plotH, class: 'axis' }),
    svg('line', { x1: PAD.left, y1: PAD.top + 0.5, x2: WIDTH - PAD.right, y2: PAD.top + 0.5, class: 'grid' }),
    svg('text', { x: PAD.left - 4, y: PAD.top + 4, 'text-anchor': 'end', class: 'tick', 'data-axis': 'value' }, figure(top)),
    svg('text', { x: PAD.left - 4, y: PAD.top + plotH, 'text-anchor': 'end', class: 'tick', 'data-axis': 'value' }, '0'),
    svg('text', { x: PAD.left + 4, y: PAD.top + 10, class: 'tick unit', 'data-axis': 'unit' }, series.unit),
  );
  for (const [i, anchor] of [[0, 'start'], [values.length / 2, 'middle'], [values.length, 'end']] as const) {
    s.append(svg('text', { x: PAD.left + i * bar, y: HEIGHT - 6, 'text-anchor': anchor, class: 'tick', 'data-axis': 'time' }, when(start + i * bucketMs)));
  }
  values.forEach((v, i) => {
    const from = start + i * bucketMs;
    const rect = svg('rect', { x: PAD.left + i * bar + 0.5, y: y(v), width: Math.max(1, bar - 1), height: PAD.top + plotH - y(v), class: 'bar' });
    // A zero bar has no height to hover: a clear full-height band carries its title.
    const band = svg('rect', { x: PAD.left + i * bar, y: PAD.top, width: bar, height: plotH, class: 'band' });
    const group = svg('g', { 'data-bucket': i });
    group.append(svg('title', {}, `${when(from)}–${clock(from + bucketMs)}: ${figure(v)} ${series.unit}`), band, rect);
    s.appendChild(group);
  });
  return h('figure', { class: 'metric card', 'data-metric': series.title }, h('figcaption', {}, h('strong', {}, series.title), h('span', { class: 'value' }, series.summary)), s as unknown as Node);
}
