import { api, enc, get, qs, request } from '../api.ts';
import { attempt, confirmStep, field, fmtTime, h, pagedTable, replace, toast } from '../dom.ts';
import { parseExact } from '../exact-json.ts';
import { paramInput } from '../param-input.ts';
import { resultGrid } from '../result-grid.ts';
import { runOnCtrlEnter } from '../workbench/runner.ts';
import { cacheTable } from './ops.ts';
import { callSnippets, callUrl } from '../snippets.ts';
import { highlight } from '../sql-editor.ts';
import { can } from '../state.ts';
import { historyTable } from './history.ts';
import { mongoSummary } from './mongo-fields.ts';
import { definitionForm } from './queries.ts';

/** One saved query: versions (publish, unpublish, roll back), run, history, flow, new version. */
export async function queryDetail(view: HTMLElement, name: string): Promise<void> {
  const q = await get(`/api/v1/queries/${enc(name)}`);
  const panel = h('div', { class: 'panel' });
  const tabs: Array<[string, () => Promise<void> | void]> = [
    ['Versions', () => versions(panel, q, reload)],
    // Without the right to run, the call is still shown: the snippets are for a key's holder.
    can('data.run') ? ['Run', () => runPanel(panel, q)] : ['Call it', () => replace(panel, callSnippets({ url: callUrl(`/q/${enc(q.name)}`) }, { mcp: true }))],
    ['History', () => historyPanel(panel, name)],
    ['Flow', () => flow(panel, q)],
    ...(can('cache.read') ? ([['Cache', () => cachePanel(panel, name)]] as Array<[string, () => Promise<void>]>) : []),
    ...(can('queries.write') ? ([['New version', () => definitionForm(panel, { ...q, ...latest(q) }, reload)]] as Array<[string, () => Promise<void>]>) : []),
  ];
  const bar = h('div', { class: 'tabs', role: 'tablist' });
  const open = (i: number) => {
    for (const [j, b] of [...bar.children].entries()) b.setAttribute('aria-selected', String(i === j));
    panel.replaceChildren();
    void Promise.resolve(tabs[i][1]()).catch((e) => attempt(panel, () => Promise.reject(e)));
  };
  tabs.forEach(([label], i) => bar.appendChild(h('button', { type: 'button', role: 'tab', onclick: () => open(i) }, label)));
  async function reload() {
    await queryDetail(view, name);
  }
  replace(
    view,
    h('p', {}, h('a', { href: '#/queries' }, '‹ Saved queries')),
    h('h1', {}, name),
    h('p', { class: 'muted' }, q.description ?? '', ' ', q.published_version === null ? h('span', { class: 'badge' }, 'not published') : `Published: v${q.published_version}`, q.collection ? ` · collection ${q.collection}` : ''),
    bar,
    panel,
  );
  open(0);
}

const latest = (q: any) => q.versions[q.versions.length - 1] ?? {};

function versions(panel: HTMLElement, q: any, reload: () => Promise<void>): void {
  const write = can('queries.write');
  const out = h('div', { 'aria-live': 'polite' });
  const act = (work: () => Promise<unknown>, message: string) => attempt(out, async () => (await work(), toast(message), await reload()));
  replace(
    panel,
    out,
    write && q.published_version !== null && h('button', { type: 'button', onclick: () => act(() => api('POST', `/api/v1/queries/${enc(q.name)}/unpublish`), 'Unpublished.') }, 'Unpublish'),
    pagedTable(
      [
        { label: 'Version', cell: (v) => `v${v.version}` },
        { label: 'Status', cell: (v) => h('span', { class: `badge ${v.status}` }, v.status) },
        { label: 'Created', cell: (v) => fmtTime(v.created_at) },
        { label: 'Author', cell: (v) => v.author ?? '—' },
        { label: 'Runs', cell: (v) => v.run_count },
        { label: 'Definition', cell: (v) => h('pre', { class: 'sql-view' }, v.query_type === 'mongo' ? mongoSummary(v) : highlight(v.sql ?? '')) },
        {
          label: 'Actions',
          cell: (v) =>
            write &&
            v.version !== q.published_version &&
            h('div', { class: 'row-actions' },
              h('button', { type: 'button', onclick: () => act(() => api('POST', `/api/v1/queries/${enc(q.name)}/publish`, { version: v.version }), `Published v${v.version}.`) }, q.published_version !== null && v.version < q.published_version ? 'Roll back to this' : 'Publish'),
              q.versions.length > 1 && h('button', { type: 'button', class: 'danger', onclick: async () => (await confirmStep(`Delete v${v.version}`, 'This version is deleted; the others stay.', 'Delete')) && act(() => api('DELETE', `/api/v1/queries/${enc(q.name)}/versions/${v.version}`), `Deleted v${v.version}.`) }, 'Delete version'),
            ),
        },
      ],
      [...q.versions].reverse(),
      { pageSize: 10, label: 'Versions' },
    ),
    write && h('button', { type: 'button', class: 'danger', onclick: async () => (await confirmStep(`Delete ${q.name}`, 'Every version is deleted.', 'Delete')) && attempt(out, async () => (await api('DELETE', `/api/v1/queries/${enc(q.name)}`), (location.hash = '#/queries'))) }, 'Delete query'),
  );
}

const FORMATS = ['json', 'ndjson', 'csv', 'tsv', 'xml', 'yaml', 'xlsx', 'parquet'];
/** The formats a stored result is written in. */
const RESULT_FORMATS = ['csv', 'tsv', 'ndjson', 'parquet'];

/** A form from the version's parameters, a results grid paged by the server (X-Has-More), and downloads in every format. */
function runPanel(panel: HTMLElement, q: any): void {
  const versionSelect = h('select', { 'aria-label': 'Version' }, q.versions.map((v: any) => h('option', { value: v.version, selected: v.version === (q.published_version ?? latest(q).version) }, `v${v.version} (${v.status})`)));
  const form = h('div', { class: 'grid-form' });
  const inputs = new Map<string, HTMLInputElement | HTMLSelectElement>();
  const drawForm = () => {
    const v = q.versions.find((x: any) => String(x.version) === versionSelect.value) ?? latest(q);
    inputs.clear();
    replace(form, Object.entries(v.parameters ?? {}).map(([p, rule]: [string, any]) => {
      const { el, control } = paramInput({ query: q.name, version: v.version }, p, rule);
      inputs.set(p, control);
      return el;
    }));
  };
  versionSelect.addEventListener('change', drawForm);
  drawForm();
  const pageSize = h('input', { type: 'number', min: 1, value: 10, 'aria-label': 'Page size' });
  const format = h('select', { 'aria-label': 'Download format' }, FORMATS.map((f) => h('option', { value: f }, f)));
  const out = h('div', { 'aria-live': 'polite' });
  let page = 1;
  // GET: query-string values are converted to each parameter's type by the server (a JSON body must carry them typed).
  const url = (extra: Record<string, string | number>) => `/q/${enc(q.name)}${qs({ ...Object.fromEntries([...inputs].map(([k, i]) => [k, i.value])), version: versionSelect.value, page, page_size: pageSize.value, ...extra })}`;
  const run = () =>
    attempt(out, async () => {
      const res = await request('GET', url({}), undefined, { workspace: false });
      // Read exactly: a 64-bit integer or a decimal keeps the digits the API wrote.
      const data: any = parseExact(await res.text());
      const rows: any[] = Array.isArray(data) ? data : [];
      const more = res.headers.get('x-has-more') === 'true';
      replace(
        out,
        rows.length === 0 ? h('p', { class: 'empty' }, data.message ?? 'No results returned') : resultGrid(rows),
        h('nav', { class: 'pager', 'aria-label': 'Result pages' },
          h('button', { type: 'button', disabled: page === 1, onclick: () => ((page -= 1), run()) }, '‹ Previous'),
          h('span', {}, `Page ${page}${res.headers.get('x-cache') ? ` · cache ${res.headers.get('x-cache')}` : ''}`),
          h('button', { type: 'button', disabled: !more, onclick: () => ((page += 1), run()) }, 'Next ›'),
        ),
      );
    });
  const download = () =>
    attempt(out, async () => {
      const res = await request('GET', url({ format: format.value }), undefined, { workspace: false });
      const href = URL.createObjectURL(await res.blob());
      const a = h('a', { href, download: `${q.name}.${format.value}` });
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(href), 10_000);
      replace(out, h('p', { class: 'ok', role: 'status' }, `Downloaded ${format.value}.`));
    });
  // The whole answer stored as a result (docs/reference/results.md): progress while it is written, then a link per chunk.
  const asResult = () =>
    attempt(out, async () => {
      if (!RESULT_FORMATS.includes(format.value)) {
        replace(out, h('p', { class: 'error', role: 'alert' }, `A result is written as ${RESULT_FORMATS.join(', ')}: pick one of them as the format.`));
        return;
      }
      const values = Object.fromEntries([...inputs].map(([k, i]) => [k, i.value]));
      const started = await request('GET', `/q/${enc(q.name)}${qs({ ...values, version: versionSelect.value, format: format.value })}`, undefined, { workspace: false, headers: { prefer: 'respond-async, wait=0' } });
      let result = await started.json();
      while (result.state === 'queued' || result.state === 'running') {
        replace(out, h('p', { role: 'status' }, `Result ${result.state}: ${result.rows.toLocaleString()} rows in ${result.chunks.length} chunk${result.chunks.length === 1 ? '' : 's'} so far…`));
        await new Promise((resolve) => setTimeout(resolve, 500));
        result = await (await request('GET', `/results/${enc(result.id)}`, undefined, { workspace: false })).json();
      }
      if (result.state !== 'succeeded') {
        replace(out, h('p', { class: 'error', role: 'alert' }, `Result ${result.state}: ${result.error?.error ?? 'no rows'}`));
        return;
      }
      replace(
        out,
        h('p', { class: 'ok', role: 'status' }, `Result ready: ${result.rows.toLocaleString()} rows in ${result.chunks.length} chunk${result.chunks.length === 1 ? '' : 's'}${result.truncated ? ' (cut at the row limit)' : ''}. Each link works without a key until ${result.chunks[0]?.expires_at ?? '—'}.`),
        h('ul', { 'aria-label': 'Result chunks' }, result.chunks.map((chunk: any) => h('li', {}, h('a', { href: chunk.url, download: `${q.name}-${chunk.index}.${result.format}` }, `Chunk ${chunk.index}`), ` · ${chunk.rows.toLocaleString()} rows, ${chunk.bytes.toLocaleString()} bytes`))),
        h('h3', {}, 'Read this result'),
        callSnippets({ url: callUrl(`/results/${enc(result.id)}`) }),
      );
    });
  // How a caller makes this same run: the form's values and format, redrawn as they change.
  const call = h('div');
  const drawCall = () => {
    const values = Object.fromEntries([...inputs].map(([k, i]) => [k, i.value]));
    const version = versionSelect.value === String(q.published_version) ? undefined : versionSelect.value;
    replace(call, callSnippets({ url: callUrl(`/q/${enc(q.name)}`, { ...values, version, format: format.value === 'json' ? undefined : format.value }) }, { mcp: true }));
  };
  replace(
    panel,
    h('form', { class: 'run', oninput: drawCall, onchange: drawCall, onsubmit: (e: Event) => (e.preventDefault(), (page = 1), run()) },
      field('Version', versionSelect),
      form,
      field('Page size', pageSize),
      h('div', { class: 'actions' },
        h('button', { type: 'submit', class: 'primary' }, 'Run'),
        field('Format', format),
        h('button', { type: 'button', onclick: download }, 'Download'),
        h('button', { type: 'button', onclick: asResult }, 'Run as a result'),
      ),
    ),
    out,
    h('section', { 'aria-label': 'Call it' }, h('h2', {}, 'Call it'), call),
  );
  const runForm = panel.querySelector<HTMLFormElement>('form.run')!;
  runOnCtrlEnter(runForm, () => runForm.requestSubmit());
  drawCall();
}

function historyPanel(panel: HTMLElement, name: string): Promise<void> {
  return historyTable(panel, `/api/v1/queries/${enc(name)}/history`, ['version', 'status', 'key', 'since', 'until']);
}

async function flow(panel: HTMLElement, q: any): Promise<void> {
  const v = q.published_version ?? latest(q).version;
  const f = await attempt(panel, () => get(`/api/v1/queries/${enc(q.name)}/versions/${v}/flow`));
  if (!f) return;
  replace(
    panel,
    h('h2', {}, `Flow of v${v}`),
    f.error && h('p', { class: 'warning' }, f.error),
    h('h3', {}, 'Tables'),
    h('ul', {}, (f.tables ?? []).map((t: any) => h('li', {}, typeof t === 'string' ? t : (t.name ?? JSON.stringify(t))))),
    (f.joins ?? []).length > 0 && [h('h3', {}, 'Joins'), h('ul', {}, f.joins.map((j: any) => h('li', {}, typeof j === 'string' ? j : JSON.stringify(j))))],
    f.formatted_sql && [h('h3', {}, 'SQL'), h('pre', { class: 'sql-view' }, highlight(f.formatted_sql))],
  );
}

/** This query's cached responses. */
async function cachePanel(panel: HTMLElement, name: string): Promise<void> {
  await cacheTable(panel, (e) => e.meta.query === name);
}
