import { ApiError } from './api.ts';

export type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, unknown>;

/** Builds an element: `on<event>` attributes are listeners, `value`/`checked` properties, the rest attributes. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value as EventListener);
    else if (name === 'value' || name === 'checked') (el as any)[name] = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

export function append(el: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** An error as the API gave it: message, `code` and `request_id`, in an alert region. */
export function errorBox(error: unknown): HTMLElement {
  if (error instanceof ApiError) {
    const details = (error.body as any)?.errors ?? (error.body as any)?.detail;
    return h(
      'div',
      { class: 'error', role: 'alert' },
      h('strong', {}, error.message),
      h('div', { class: 'meta' }, `HTTP ${error.status}`, error.code && [' · code ', h('code', {}, error.code)], error.requestId && [' · request_id ', h('code', {}, error.requestId)]),
      details && h('pre', {}, typeof details === 'string' ? details : JSON.stringify(details, null, 2)),
    );
  }
  return h('div', { class: 'error', role: 'alert' }, h('strong', {}, error instanceof Error ? error.message : String(error)));
}

/** Runs `work`, showing progress in `target` while it runs and an error box if it fails. */
export async function attempt<T>(target: Element, work: () => Promise<T>): Promise<T | undefined> {
  const busy = h('div', { class: 'progress', role: 'status' }, 'Working…');
  target.replaceChildren(busy);
  try {
    const result = await work();
    busy.remove();
    return result;
  } catch (error) {
    target.replaceChildren(errorBox(error));
    return undefined;
  }
}

export interface Column<T> {
  label: string;
  cell: (row: T) => Child;
}

/** A table that pages its rows (25 a page by default) with Previous/Next buttons. */
export function pagedTable<T>(columns: Column<T>[], rows: T[], options: { pageSize?: number; empty?: string; label?: string } = {}): HTMLElement {
  const pageSize = options.pageSize ?? 25;
  const wrap = h('div', { class: 'table-wrap' });
  let page = 0;
  const pages = Math.max(1, Math.ceil(rows.length / pageSize));
  const draw = () => {
    const slice = rows.slice(page * pageSize, (page + 1) * pageSize);
    replace(
      wrap,
      rows.length === 0
        ? h('p', { class: 'empty' }, options.empty ?? 'Nothing here yet.')
        : h(
            'div',
            // Focusable, so a keyboard can scroll a wide table that holds no control of its own.
            { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': options.label ?? 'Table' },
            h(
              'table',
              { 'aria-label': options.label },
              h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col' }, c.label)))),
              h('tbody', {}, slice.map((row) => h('tr', {}, columns.map((c) => h('td', { 'data-label': c.label }, c.cell(row)))))),
            ),
          ),
      rows.length > pageSize &&
        h(
          'nav',
          { class: 'pager', 'aria-label': 'Pages' },
          h('button', { type: 'button', disabled: page === 0, onclick: () => ((page -= 1), draw()) }, '‹ Previous'),
          h('span', {}, `Page ${page + 1} of ${pages} · ${rows.length} items`),
          h('button', { type: 'button', disabled: page >= pages - 1, onclick: () => ((page += 1), draw()) }, 'Next ›'),
        ),
    );
  };
  draw();
  return wrap;
}

/** A labelled form field. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hint && h('small', {}, hint));
}

/** A modal dialog (Escape closes it); resolves when it closes. */
export function dialog(title: string, body: Child, actions: (close: () => void) => Child): Promise<void> {
  return new Promise((resolve) => {
    const el = h('dialog', { 'aria-label': title });
    const close = () => el.close();
    el.addEventListener('close', () => {
      el.remove();
      resolve();
    });
    append(el, [h('h2', {}, title), body, h('div', { class: 'actions' }, actions(close))]);
    document.body.appendChild(el);
    el.showModal();
  });
}

/** Asks for a reason (required by some deletes); null when cancelled. */
export function askReason(title: string, label = 'Reason'): Promise<string | null> {
  let answer: string | null = null;
  const input = h('input', { required: true, autocomplete: 'off' });
  return dialog(
    title,
    field(label, input),
    (close) => [
      h('button', { type: 'button', onclick: close }, 'Cancel'),
      h('button', { type: 'button', class: 'danger', onclick: () => input.value.trim() && ((answer = input.value.trim()), close()) }, 'Confirm'),
    ],
  ).then(() => answer);
}

/** Yes or no, before a destructive step. */
export function confirmStep(title: string, text: string, verb = 'Confirm'): Promise<boolean> {
  let yes = false;
  return dialog(title, h('p', {}, text), (close) => [
    h('button', { type: 'button', onclick: close }, 'Cancel'),
    h('button', { type: 'button', class: 'danger', onclick: () => ((yes = true), close()) }, verb),
  ]).then(() => yes);
}

/** A secret shown once, with a Copy button (and, after it, whatever `more` holds: how to call with it). */
export function showSecret(title: string, secret: string, more?: Child): Promise<void> {
  const status = h('span', { role: 'status' });
  return dialog(
    title,
    [h('p', {}, 'Copy it now: it is shown this once and cannot be read again.'), h('pre', { class: 'secret', 'data-testid': 'secret' }, secret), status, more],
    (close) => [
      h('button', { type: 'button', onclick: () => navigator.clipboard.writeText(secret).then(() => (status.textContent = 'Copied.'), () => (status.textContent = 'Copy failed: select the text instead.')) }, 'Copy'),
      h('button', { type: 'button', onclick: close }, 'Done'),
    ],
  );
}

/** A short message in the live region. */
export function toast(text: string): void {
  const region = document.getElementById('toast');
  if (!region) return;
  region.textContent = text;
  setTimeout(() => region.textContent === text && (region.textContent = ''), 4000);
}

export const fmtTime = (value: string | null | undefined) => (value ? value.replace('T', ' ').replace(/\.\d+/, '') : '—');

/** Parses a JSON textarea; throws with the field named. */
export function parseJson(label: string, text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${label} is not valid JSON: ${(e as Error).message}`);
  }
}
