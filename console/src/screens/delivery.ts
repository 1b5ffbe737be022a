import { api, enc, get, request } from '../api.ts';
import { attempt, dialog, errorBox, field, fmtTime, h, pagedTable, parseJson, replace, toast } from '../dom.ts';
import { can } from '../state.ts';

/** Destinations: where exports write; test one. */
export async function destinationsScreen(view: HTMLElement): Promise<void> {
  const out = h('div');
  const result = h('div', { 'aria-live': 'polite' });
  replace(view, h('div', { class: 'title-row' }, h('h1', {}, 'Destinations'), can('destinations.write') && h('button', { type: 'button', class: 'primary', onclick: () => createDestination(reload) }, 'New destination')), result, out);
  async function reload() {
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
  await reload();
}

/** S3, GCS, R2 (`s3://`, `gs://`, `r2://` URLs) or a local folder inside SLUICE_EXPORT_DIRS; Test writes a probe before saving. */
async function createDestination(reload: () => Promise<void>): Promise<void> {
  const inputs = { name: h('input', { required: true }), url: h('input', { required: true, placeholder: 's3://bucket/prefix or /srv/exports' }), region: h('input'), endpoint: h('input'), user: h('input', { autocomplete: 'off' }), password: h('input', { type: 'password', autocomplete: 'new-password' }) };
  const out = h('div', { 'aria-live': 'polite' });
  const body = () => Object.fromEntries(Object.entries(inputs).filter(([, i]) => i.value.trim() !== '').map(([k, i]) => [k, i.value.trim()]));
  await dialog('New destination', h('form', { class: 'grid-form', onsubmit: (e: Event) => e.preventDefault() }, field('Name', inputs.name), field('URL', inputs.url), field('Region', inputs.region), field('Endpoint', inputs.endpoint), field('Access key id', inputs.user), field('Secret', inputs.password, 'Or a ${VAR} reference'), out), (close) => [
    h('button', { type: 'button', onclick: close }, 'Cancel'),
    h('button', { type: 'button', onclick: () => attempt(out, async () => {
      const { name: _name, ...fields } = body();
      await api('POST', '/api/v1/destinations/test', fields);
      replace(out, h('p', { class: 'ok', role: 'status' }, 'Test passed: a probe object was written.'));
    }) }, 'Test'),
    h('button', { type: 'button', class: 'primary', onclick: () => attempt(out, async () => (await api('POST', '/api/v1/destinations', body()), close())) }, 'Save'),
  ]);
  await reload();
}

/** Exports: run now, recent runs, and a watermark rewind. */
export async function exportsScreen(view: HTMLElement): Promise<void> {
  const out = h('div');
  const result = h('div', { 'aria-live': 'polite' });
  replace(view, h('div', { class: 'title-row' }, h('h1', {}, 'Exports'), can('exports.write') && h('button', { type: 'button', class: 'primary', onclick: () => createExport(reload) }, 'New export')), result, out);
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

/** A published query's full result to a destination, in parquet, csv or ndjson, optionally incremental. */
async function createExport(reload: () => Promise<void>): Promise<void> {
  const [queries, destinations] = await Promise.all([get<{ queries: any[] }>('/api/v1/queries?status=published'), get<{ destinations: any[] }>('/api/v1/destinations')]);
  const name = h('input', { required: true });
  const query = h('select', {}, queries.queries.map((q) => h('option', { value: q.name }, q.name)));
  const destination = h('select', {}, destinations.destinations.map((d) => h('option', { value: d.name }, d.name)));
  const format = h('select', {}, ['parquet', 'csv', 'ndjson'].map((f) => h('option', { value: f }, f)));
  const params = h('textarea', { rows: 2, spellcheck: 'false', placeholder: '{"region": "eu"}' });
  const path = h('input', { placeholder: '{name}/{date}/{run}' });
  const incremental = h('textarea', { rows: 2, spellcheck: 'false', placeholder: '{"column": "id", "parameter": "after", "start": 0}' });
  const out = h('div', { 'aria-live': 'polite' });
  await dialog('New export', h('form', { class: 'grid-form', onsubmit: (e: Event) => e.preventDefault() }, field('Name', name), field('Query (published)', query), field('Destination', destination), field('Format', format), field('Parameters (JSON)', params), field('Path', path), field('Incremental (JSON)', incremental), out), (close) => [
    h('button', { type: 'button', onclick: close }, 'Cancel'),
    h('button', { type: 'button', class: 'primary', onclick: () => attempt(out, async () => {
      const body: Record<string, unknown> = { name: name.value.trim(), query: query.value, destination: destination.value, format: format.value };
      const p = parseJson('Parameters', params.value);
      if (p !== undefined) body.params = p;
      if (path.value.trim()) body.path = path.value.trim();
      const inc = parseJson('Incremental', incremental.value);
      if (inc !== undefined) body.incremental = inc;
      await api('POST', '/api/v1/exports', body);
      close();
    }) }, 'Create'),
  ]);
  await reload();
}
