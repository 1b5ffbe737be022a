import { api, enc, get, request } from '../api.ts';
import { attempt, dialog, errorBox, field, fmtTime, h, pagedTable, replace, toast } from '../dom.ts';
import { can } from '../state.ts';

/** Destinations: where exports write; test one. */
export async function destinationsScreen(view: HTMLElement): Promise<void> {
  const out = h('div');
  const result = h('div', { 'aria-live': 'polite' });
  replace(view, h('h1', {}, 'Destinations'), result, out);
  const data = await attempt(out, () => get<{ destinations: any[] }>('/api/v1/destinations'));
  if (!data) return;
  out.replaceChildren(
    pagedTable(
      [
        { label: 'Name', cell: (d) => h('strong', {}, d.name) },
        { label: 'URL', cell: (d) => h('code', {}, d.url) },
        { label: 'Region', cell: (d) => d.region ?? '—' },
        { label: 'Endpoint', cell: (d) => d.endpoint ?? '—' },
        { label: 'Actions', cell: (d) => can('destinations.write') && h('button', { type: 'button', onclick: () => attempt(result, async () => { const r = await api('POST', `/api/v1/destinations/${enc(d.name)}/test`); replace(result, h('p', { class: 'ok', role: 'status' }, `Test of ${d.name} passed${r.object ? `: wrote ${r.object}` : ''}.`)); }) }, 'Test') },
      ],
      data.destinations,
      { empty: 'No destinations.', label: 'Destinations' },
    ),
  );
}

/** Exports: run now, recent runs, and a watermark rewind. */
export async function exportsScreen(view: HTMLElement): Promise<void> {
  const out = h('div');
  const result = h('div', { 'aria-live': 'polite' });
  replace(view, h('h1', {}, 'Exports'), result, out);
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
          { label: 'Watermark', cell: (x) => (x.watermark === null || x.watermark === undefined ? '—' : JSON.stringify(x.watermark)) },
          {
            label: 'Actions',
            cell: (x) =>
              h('div', { class: 'row-actions' },
                can('exports.run') && h('button', { type: 'button', onclick: () => attempt(result, async () => { const r = await api('POST', `/api/v1/exports/${enc(x.name)}/runs`); replace(result, h('p', { class: 'ok', role: 'status' }, `Run ${r.status}: ${r.rows ?? 0} rows${r.object ? ` to ${r.object}` : ''}.`)); await reload(); }) }, 'Run now'),
                h('button', { type: 'button', onclick: () => runs(x.name) }, 'Runs'),
                can('exports.write') && h('button', { type: 'button', onclick: () => rewind(x.name, reload) }, 'Rewind'),
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

async function rewind(name: string, reload: () => Promise<void>): Promise<void> {
  const value = h('input', { placeholder: 'empty resets it' });
  const out = h('div');
  await dialog(`Rewind the watermark of ${name}`, [field('Watermark (JSON or text)', value), out], (close) => [
    h('button', { type: 'button', onclick: close }, 'Cancel'),
    h('button', { type: 'button', class: 'primary', onclick: async () => {
      try {
        let watermark: unknown = null;
        if (value.value.trim()) try { watermark = JSON.parse(value.value); } catch { watermark = value.value; }
        const etag = (await request('GET', `/api/v1/exports/${enc(name)}`)).headers.get('etag');
        await api('PATCH', `/api/v1/exports/${enc(name)}`, { watermark }, { headers: etag ? { 'if-match': etag } : {} });
        toast('Watermark changed.');
        close();
      } catch (error) {
        replace(out, errorBox(error));
      }
    } }, 'Save'),
  ]);
  await reload();
}
