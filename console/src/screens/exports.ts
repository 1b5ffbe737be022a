import { api, enc, get, ifMatch, request } from '../api.ts';
import { attempt, dialog, errorBox, field, fmtTime, h, pagedTable, parseJson, replace, toast } from '../dom.ts';
import { can } from '../state.ts';

const showJson = (value: unknown) => (value === null || value === undefined ? '' : JSON.stringify(value));

/** Exports: create, edit, run now, recent runs, and a watermark rewind. */
export async function exportsScreen(view: HTMLElement): Promise<void> {
  const out = h('div');
  const result = h('div', { 'aria-live': 'polite' });
  const write = can('exports.write');
  replace(view, h('div', { class: 'title-row' }, h('h1', {}, 'Exports'), write && h('button', { type: 'button', class: 'primary', onclick: () => exportForm(null, reload) }, 'New export')), result, out);
  async function reload() {
    const data = await attempt(out, () => get<{ exports: any[] }>('/api/v1/exports'));
    if (!data) return;
    out.replaceChildren(
      pagedTable(
        [
          { label: 'Name', cell: (x) => h('strong', {}, x.name) },
          { label: 'Query', cell: (x) => x.query ?? '—' },
          { label: 'Destination', cell: (x) => x.destination ?? '—' },
          { label: 'Format', cell: (x) => x.format },
          { label: 'Running', cell: (x) => (x.running ? 'yes' : 'no') },
          { label: 'Watermark', cell: (x) => showJson(x.watermark) || '—' },
          {
            label: 'Actions',
            cell: (x) =>
              h('div', { class: 'row-actions' },
                can('exports.run') && h('button', { type: 'button', onclick: () => attempt(result, async () => { const r = await api('POST', `/api/v1/exports/${enc(x.name)}/runs`); replace(result, h('p', { class: 'ok', role: 'status' }, `Run ${r.status}: ${r.rows ?? 0} rows${r.object ? ` to ${r.object}` : ''}.`)); await reload(); }) }, 'Run now'),
                h('button', { type: 'button', onclick: () => runs(x.name) }, 'Runs'),
                write && h('button', { type: 'button', onclick: () => editExport(x.name, reload) }, 'Edit'),
                write && h('button', { type: 'button', onclick: () => rewind(x.name, reload) }, 'Rewind'),
              ),
          },
        ],
        data.exports,
        { empty: 'No exports.', label: 'Exports' },
      ),
    );
  }
  await reload();
}

async function runs(name: string): Promise<void> {
  const out = h('div');
  const done = dialog(`Runs of ${name}`, out, (close) => h('button', { type: 'button', onclick: close }, 'Close'));
  const data = await attempt(out, () => get<{ runs: any[] }>(`/api/v1/exports/${enc(name)}/runs`));
  if (data) out.replaceChildren(pagedTable([{ label: 'Started', cell: (r) => fmtTime(r.started_at) }, { label: 'Status', cell: (r) => r.status }, { label: 'Rows', cell: (r) => r.rows ?? '—' }, { label: 'Object', cell: (r) => r.object ?? '—' }, { label: 'Error', cell: (r) => r.error ?? '' }], data.runs, { pageSize: 10, empty: 'No runs yet.', label: 'Runs' }));
  await done;
}

const currentEtag = async (name: string) => ifMatch((await request('GET', `/api/v1/exports/${enc(name)}`)).headers.get('etag'));

async function rewind(name: string, reload: () => Promise<void>): Promise<void> {
  const value = h('input', { placeholder: 'empty resets it' });
  const out = h('div');
  await dialog(`Rewind the watermark of ${name}`, [field('Watermark (JSON or text)', value), out], (close) => [
    h('button', { type: 'button', onclick: close }, 'Cancel'),
    h('button', { type: 'button', class: 'primary', onclick: async () => {
      try {
        let watermark: unknown = null;
        if (value.value.trim()) try { watermark = JSON.parse(value.value); } catch { watermark = value.value; }
        await api('PATCH', `/api/v1/exports/${enc(name)}`, { watermark }, await currentEtag(name));
        toast('Watermark changed.');
        close();
      } catch (error) {
        replace(out, errorBox(error));
      }
    } }, 'Save'),
  ]);
  await reload();
}

async function editExport(name: string, reload: () => Promise<void>): Promise<void> {
  await exportForm(await get(`/api/v1/exports/${enc(name)}`), reload);
}

/**
 * New (null) or edit: a published query's full result to a destination, in
 * parquet, csv or ndjson, optionally incremental. On an edit an emptied
 * field is cleared (parameters, path and incremental back to none or the
 * default); the watermark is the Rewind dialog's.
 */
async function exportForm(existing: any | null, reload: () => Promise<void>): Promise<void> {
  const [queries, destinations] = await Promise.all([get<{ queries: any[] }>('/api/v1/queries?status=published'), get<{ destinations: any[] }>('/api/v1/destinations')]);
  const name = h('input', { required: true, value: existing?.name ?? '', disabled: existing !== null });
  // An edited export keeps its query even if that is no longer published.
  const queryNames = [...new Set([...(existing ? [existing.query] : []), ...queries.queries.map((q) => q.name)])];
  const query = h('select', {}, queryNames.map((q) => h('option', { value: q, selected: existing?.query === q }, q)));
  const destination = h('select', {}, destinations.destinations.map((d) => h('option', { value: d.name, selected: existing?.destination === d.name }, d.name)));
  const format = h('select', {}, ['parquet', 'csv', 'ndjson'].map((f) => h('option', { value: f, selected: existing?.format === f }, f)));
  const params = h('textarea', { rows: 2, spellcheck: 'false', placeholder: '{"region": "eu"}' }, existing && Object.keys(existing.params ?? {}).length ? showJson(existing.params) : '');
  const path = h('input', { value: existing?.path ?? '', placeholder: '{name}/{date}/{run}' });
  const incremental = h('textarea', { rows: 2, spellcheck: 'false', placeholder: '{"column": "id", "parameter": "after", "start": 0}' }, showJson(existing?.incremental));
  const skipEmpty = h('input', { type: 'checkbox', checked: existing?.skip_empty ?? true });
  const timeout = h('input', { type: 'number', min: 1, value: existing?.timeout ?? '' });
  const out = h('div', { 'aria-live': 'polite' });
  const body = (): Record<string, unknown> => {
    const b: Record<string, unknown> = { query: query.value, destination: destination.value, format: format.value, skip_empty: skipEmpty.checked };
    const clear = existing ? null : undefined;
    b.params = parseJson('Parameters', params.value) ?? clear;
    b.path = path.value.trim() || clear;
    b.incremental = parseJson('Incremental', incremental.value) ?? clear;
    b.timeout = timeout.value ? Number(timeout.value) : clear;
    return b;
  };
  await dialog(existing ? `Edit export ${existing.name}` : 'New export', h('form', { class: 'grid-form', onsubmit: (e: Event) => e.preventDefault() }, field('Name', name), field('Query (published)', query), field('Destination', destination), field('Format', format), field('Parameters (JSON)', params), field('Path', path), field('Incremental (JSON)', incremental), field('Skip empty', skipEmpty, 'No object when there are no rows'), field('Timeout (s)', timeout), out), (close) => [
    h('button', { type: 'button', onclick: close }, 'Cancel'),
    h('button', { type: 'button', class: 'primary', onclick: () => attempt(out, async () => {
      if (existing) await api('PATCH', `/api/v1/exports/${enc(existing.name)}`, body(), await currentEtag(existing.name));
      else await api('POST', '/api/v1/exports', { name: name.value.trim(), ...body() });
      toast('Saved.');
      close();
    }) }, existing ? 'Save' : 'Create'),
  ]);
  await reload();
}
