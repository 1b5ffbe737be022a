import { ApiError, qs, request } from '../api.ts';
import { errorBox, field, h, replace } from '../dom.ts';
import { parseExact } from '../exact-json.ts';
import { resultGrid } from '../result-grid.ts';
import { remember } from './history.ts';
import { errorLine, markers } from './sql-text.ts';

export interface Statement {
  sql: string;
  connection: string;
}

/** The formats a stream (`stream=true`) is written in: a download is the whole result, not a page. */
export const DOWNLOAD_FORMATS = ['csv', 'tsv', 'ndjson', 'parquet'];

export interface Runner {
  el: HTMLElement;
  run: (page?: number) => Promise<void>;
  explain: () => Promise<void>;
  download: (format: string) => Promise<void>;
  /** Offers an input for each `:name` marker of the statement. */
  syncParams: (sql: string) => void;
}

/**
 * Runs a statement as `POST /execute_sql` does, so the server's guard and
 * errors are the ones callers meet: a page of rows in the grid with the time
 * taken, and the statement type and tables read from a dry run made beside
 * it (which plans, never executes); Explain shows the dry run's estimate.
 */
export function runner(read: () => Statement | null, textarea?: HTMLTextAreaElement): Runner {
  const params = h('div', { class: 'grid-form wb-params' });
  const values = new Map<string, HTMLInputElement>();
  const pageSize = h('select', { 'aria-label': 'Rows per page' }, [25, 50, 100, 500].map((n) => h('option', { value: n, selected: n === 50 }, String(n))));
  const out = h('div', { class: 'wb-out', 'aria-live': 'polite' });
  let page = 1;

  const syncParams = (sql: string) => {
    const names = markers(sql);
    for (const name of names) if (!values.has(name)) values.set(name, h('input', { autocomplete: 'off' }));
    replace(params, names.map((name) => field(`:${name}`, values.get(name)!)));
  };
  const body = (s: Statement) => {
    syncParams(s.sql);
    const bound = markers(s.sql);
    return { sql: s.sql, connection_name: s.connection, ...(bound.length ? { params: Object.fromEntries(bound.map((n) => [n, values.get(n)!.value])) } : {}) };
  };
  const call = (path: string, s: Statement) => request('POST', path, body(s), { workspace: false });
  const statement = () => {
    const s = read();
    if (!s?.connection) replace(out, h('p', { class: 'error', role: 'alert' }, 'Choose a connection first.'));
    else if (!s.sql.trim()) replace(out, h('p', { class: 'error', role: 'alert' }, 'Write a statement first.'));
    else return s;
    return null;
  };
  const busy = (text: string) => replace(out, h('div', { class: 'progress', role: 'status' }, text));

  const run = async (to = 1) => {
    const s = statement();
    if (!s) return;
    page = to;
    if (page === 1) remember(s.sql, s.connection);
    busy('Running…');
    const started = performance.now();
    // The dry run answers the statement type and tables; asked for page 1 only, beside the run.
    const dry = page === 1 ? call('/execute_sql?dry_run=true', s).then((r) => r.json(), () => null) : Promise.resolve(null);
    try {
      const res = await call(`/execute_sql${qs({ page, page_size: pageSize.value })}`, s);
      const data = parseExact(await res.text());
      const ms = performance.now() - started;
      const facts = await dry;
      const rows = Array.isArray(data) ? (data as Array<Record<string, unknown>>) : [];
      const more = res.headers.get('x-has-more') === 'true';
      replace(
        out,
        h('p', { class: 'wb-facts', 'data-testid': 'run-facts' },
          `${rows.length} row${rows.length === 1 ? '' : 's'} on page ${page} · ${Math.round(ms)} ms`,
          facts && ` · ${facts.statement_type} · tables read: ${(facts.tables ?? []).join(', ') || '—'}`),
        rows.length ? resultGrid(rows) : h('p', { class: 'empty' }, String((data as { message?: unknown })?.message ?? 'No results returned')),
        (page > 1 || more) && h('nav', { class: 'pager', 'aria-label': 'Result pages' },
          h('button', { type: 'button', disabled: page === 1, onclick: () => run(page - 1) }, '‹ Previous'),
          h('span', {}, `Page ${page}`),
          h('button', { type: 'button', disabled: !more, onclick: () => run(page + 1) }, 'Next ›')),
      );
    } catch (error) {
      failed(error);
    }
  };

  const failed = (error: unknown) => {
    const detail = error instanceof ApiError ? (error.body as { detail?: unknown } | null)?.detail : undefined;
    const line = typeof detail === 'string' ? errorLine(detail) : null;
    replace(out, errorBox(error), line !== null && textarea && h('button', { type: 'button', onclick: () => goToLine(textarea, line) }, `Go to line ${line}`));
  };

  const explain = async () => {
    const s = statement();
    if (!s) return;
    busy('Asking the planner…');
    try {
      const r = await (await call('/execute_sql?dry_run=true', s)).json();
      const e = r.estimate ?? {};
      replace(out, h('dl', { class: 'facts', 'data-testid': 'estimate' },
        h('dt', {}, 'Statement'), h('dd', {}, r.statement_type ?? '—'),
        h('dt', {}, 'Tables read'), h('dd', {}, (r.tables ?? []).join(', ') || '—'),
        h('dt', {}, 'Estimated rows'), h('dd', {}, e.rows ?? '—'),
        h('dt', {}, 'Estimated cost'), h('dd', {}, e.cost ?? '—'),
        h('dt', {}, 'Estimate from'), h('dd', {}, e.source === 'none' ? 'nothing: the engine gives no estimate' : (e.source ?? '—')),
        r.would_refuse && [h('dt', {}, 'Would be refused'), h('dd', {}, r.would_refuse.error)]));
    } catch (error) {
      failed(error);
    }
  };

  const download = async (format: string) => {
    const s = statement();
    if (!s) return;
    busy(`Writing ${format}…`);
    try {
      const res = await call(`/execute_sql${qs({ stream: 'true', format })}`, s);
      const named = /filename="?([^";]+)"?/.exec(res.headers.get('content-disposition') ?? '')?.[1];
      const href = URL.createObjectURL(await res.blob());
      const a = h('a', { href, download: named ?? `${s.connection}.${format}` });
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(href), 10_000);
      replace(out, h('p', { class: 'ok', role: 'status' }, `Downloaded ${format}.`));
    } catch (error) {
      failed(error);
    }
  };

  return { el: h('div', { class: 'wb-runner' }, params, field('Rows per page', pageSize), out), run, explain, download, syncParams };
}

/** Selects the line a database's message names, in the editor. */
function goToLine(textarea: HTMLTextAreaElement, line: number): void {
  const lines = textarea.value.split('\n');
  const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  textarea.focus();
  textarea.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
}

/** Ctrl+Enter (Cmd+Enter on a Mac) inside `el` runs. */
export function runOnCtrlEnter(el: HTMLElement, run: () => void): void {
  el.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      run();
    }
  });
}
