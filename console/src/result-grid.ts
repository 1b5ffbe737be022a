import { type Child, dialog, h } from './dom.ts';
import { JsonNumber, exactText } from './exact-json.ts';

/** Past this many characters a cell shows the start and a button for the whole value. */
const LONG = 160;

/**
 * Rows as the API answered them, read with parseExact: numbers keep their
 * digits and scale and are right-aligned, nulls are marked, dates and
 * timestamps are the text the API wrote (the server's zone), long text is cut
 * with a view of the full value.
 */
export function resultGrid(rows: Array<Record<string, unknown>>, label = 'Results'): HTMLElement {
  const columns = rows.length ? Object.keys(rows[0]) : [];
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      { class: 'grid', 'aria-label': label, 'data-testid': 'results' },
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: rows[0][c] instanceof JsonNumber ? 'num' : undefined }, c)))),
      h('tbody', {}, rows.map((row, i) => h('tr', {}, columns.map((c) => cell(row[c], `${c}, row ${i + 1}`))))),
    ),
  );
}

function cell(value: unknown, where: string): HTMLTableCellElement {
  if (value === null || value === undefined) return h('td', {}, h('span', { class: 'null' }, 'NULL'));
  if (value instanceof JsonNumber) return h('td', { class: 'num' }, value.source);
  const text = exactText(value);
  return h('td', {}, text.length <= LONG ? text : long(text, where));
}

function long(text: string, where: string): Child {
  const open = () => dialog(`Full value of ${where}`, h('pre', { class: 'full-value' }, text), (close) => h('button', { type: 'button', onclick: close }, 'Close'));
  return [h('span', {}, `${text.slice(0, LONG)}…`), ' ', h('button', { type: 'button', class: 'link', 'aria-label': `Full value of ${where}`, onclick: open }, 'more')];
}
