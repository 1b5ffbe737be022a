import { get, qs } from '../api.ts';
import { api } from '../api.ts';
import { attempt, confirmStep, field, fmtTime, h, replace } from '../dom.ts';
import { can, state } from '../state.ts';

const LABELS: Record<string, string> = { query: 'Query', version: 'Version', status: 'Status', key: 'Key', since: 'Since', until: 'Until' };

/** Runs newest first, with filters and the server's cursor paging (`next_cursor`). */
export async function historyTable(panel: HTMLElement, path: string, filters: string[]): Promise<void> {
  const inputs = Object.fromEntries(
    filters.map((f) => [f, f === 'status' ? h('select', {}, ['', 'success', 'error'].map((s) => h('option', { value: s }, s || 'any'))) : h('input', { type: f === 'since' || f === 'until' ? 'datetime-local' : 'text', size: 10 })]),
  ) as Record<string, HTMLInputElement | HTMLSelectElement>;
  const out = h('div');
  const cursors: Array<string | null> = [null];
  let index = 0;
  const load = async () => {
    const values = Object.fromEntries(Object.entries(inputs).map(([k, i]) => [k, (k === 'since' || k === 'until') && i.value ? new Date(i.value).toISOString() : i.value]));
    const data = await attempt(out, () => get<{ items: any[]; next_cursor: string | null }>(`${path}${qs({ ...values, limit: 25, cursor: cursors[index] })}`));
    if (!data) return;
    cursors[index + 1] = data.next_cursor;
    replace(
      out,
      data.items.length === 0
        ? h('p', { class: 'empty' }, 'No runs match.')
        : h('div', { class: 'scroll' }, h('table', { 'aria-label': 'Runs', 'data-testid': 'history' },
            h('thead', {}, h('tr', {}, ['Time', 'Query', 'Version', 'Status', 'Rows', 'ms', 'Key', 'Transport', 'Request id'].map((t) => h('th', { scope: 'col' }, t)))),
            h('tbody', {}, data.items.map((r) => h('tr', { class: r.status === 'error' ? 'bad' : '' },
              h('td', {}, fmtTime(r.time)), h('td', {}, r.query ?? '(ad hoc)'), h('td', {}, r.version ?? '—'), h('td', {}, r.status, r.error ? h('div', { class: 'muted' }, r.error) : ''),
              h('td', {}, r.rows ?? '—'), h('td', {}, r.duration_ms ?? '—'), h('td', {}, r.key_name ?? '—'), h('td', {}, r.transport ?? '—'), h('td', {}, h('code', {}, r.request_id ?? '—'), r.trace_id && h('div', { class: 'muted' }, 'trace ', trace(r.trace_id)))))),
          )),
      h('nav', { class: 'pager', 'aria-label': 'History pages' },
        h('button', { type: 'button', disabled: index === 0, onclick: () => ((index -= 1), load()) }, '‹ Newer'),
        h('span', {}, `Page ${index + 1}`),
        h('button', { type: 'button', disabled: !data.next_cursor, onclick: () => ((index += 1), load()) }, 'Older ›'),
      ),
    );
  };
  replace(
    panel,
    h('form', { class: 'filters', onsubmit: (e: Event) => (e.preventDefault(), (index = 0), cursors.splice(1), load()) }, filters.map((f) => field(LABELS[f], inputs[f])), h('button', { type: 'submit' }, 'Filter')),
    out,
  );
  await load();
}

/** A run's trace id: a link into the trace viewer SLUICE_TRACE_URL names, else the id alone. */
function trace(id: string): HTMLElement {
  const code = h('code', {}, id);
  const template = state.me?.trace_url;
  // The origin accepts `{trace_id}` in any case (origin/env.ts).
  return template ? h('a', { href: template.replace(/\{trace_id\}/gi, encodeURIComponent(id)), target: '_blank', rel: 'noopener noreferrer' }, code) : code;
}

export async function historyScreen(view: HTMLElement): Promise<void> {
  const panel = h('div');
  replace(view, h('h1', {}, 'History'), can('history.forget') && forgetPanel(), panel);
  await historyTable(panel, '/api/v1/history', ['query', 'version', 'status', 'key', 'since', 'until']);
}

/** Owners: forget a caller (their runs, events and usage counts), counted first by a dry run. */
function forgetPanel(): HTMLElement {
  const caller = h('input', { autocomplete: 'off' });
  const out = h('div', { 'aria-live': 'polite' });
  const path = (dry: boolean) => `/api/v1/history${qs({ caller: caller.value.trim(), dry_run: dry ? 'true' : undefined })}`;
  const count = (r: any) => `${r.runs} runs, ${r.events} events, ${r.usage_counters} usage counters`;
  return h('details', { class: 'card' }, h('summary', {}, 'Forget a caller'),
    h('form', { class: 'filters', onsubmit: (e: Event) => {
      e.preventDefault();
      if (!caller.value.trim()) return;
      void attempt(out, async () => {
        const dry = await api('DELETE', path(true));
        if (!(await confirmStep(`Forget ${caller.value.trim()}`, `This deletes ${count(dry)}.`, 'Forget'))) return replace(out, h('p', { class: 'muted' }, 'Nothing deleted.'));
        replace(out, h('p', { class: 'ok', role: 'status' }, `Forgotten: ${count(await api('DELETE', path(false)))}.`));
      });
    } }, field('Caller (key or administrator name)', caller), h('button', { type: 'submit', class: 'danger' }, 'Forget…')),
    out,
  );
}
