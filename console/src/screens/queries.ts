import { api, enc, get, qs } from '../api.ts';
import { attempt, errorBox, field, fmtTime, h, pagedTable, replace, toast } from '../dom.ts';
import { paramsEditor, type Rules } from '../params-editor.ts';
import { sqlEditor } from '../sql-editor.ts';
import { can } from '../state.ts';
import { type SchemaTable, attachCompletion } from '../workbench/completion.ts';
import { type Draft, takeDraft } from '../workbench/draft.ts';
import { type Runner, runOnCtrlEnter, runner } from '../workbench/runner.ts';
import { filterMarkers, mongoFields } from './mongo-fields.ts';
import { queryDetail } from './query-detail.ts';

/** Saved queries: list with filters, a new query, and one query's page. */
export async function queriesScreen(view: HTMLElement, args: string[]): Promise<void> {
  if (args[0] === 'new') return definitionForm(view, null, undefined, takeDraft());
  if (args[0]) return queryDetail(view, args[0]);
  const search = h('input', { type: 'search', 'aria-label': 'Search' });
  const status = h('select', { 'aria-label': 'Status' }, ['', 'published', 'unpublished', 'draft'].map((s) => h('option', { value: s }, s || 'any status')));
  const list = h('div');
  const load = async () => {
    const data = await attempt(list, () => get<{ queries: any[] }>(`/api/v1/queries${qs({ search: search.value, status: status.value })}`));
    if (!data) return;
    list.replaceChildren(
      pagedTable(
        [
          { label: 'Name', cell: (q) => h('a', { href: `#/queries/${enc(q.name)}` }, q.name) },
          { label: 'Published', cell: (q) => (q.published_version === null ? h('span', { class: 'badge' }, 'draft') : `v${q.published_version}`) },
          { label: 'Versions', cell: (q) => q.versions },
          { label: 'Connection', cell: (q) => q.connection_name ?? '—' },
          { label: 'Collection', cell: (q) => q.collection ?? '—' },
          { label: 'Last used', cell: (q) => fmtTime(q.last_used_at) },
        ],
        data.queries,
        { empty: 'No saved queries match.', label: 'Saved queries' },
      ),
    );
  };
  replace(
    view,
    h('div', { class: 'title-row' }, h('h1', {}, 'Saved queries'), can('queries.write') && h('a', { class: 'button primary', href: '#/queries/new' }, 'New query')),
    h('form', { class: 'filters', onsubmit: (e: Event) => (e.preventDefault(), load()) }, field('Search', search), field('Status', status), h('button', { type: 'submit' }, 'Filter')),
    list,
  );
  await load();
}

/**
 * The definition form: for a new query (`existing` null) or a new version of
 * one. Validate shows every problem, the parameters used and tables read.
 * A MongoDB connection's query is a find (collection, filter, projection,
 * sort) instead of SQL: the form shows the fields of the connection chosen.
 * `draft`: a new query's SQL, connection and parameters from the workbench.
 * Run draft runs the SQL as the workbench does, before anything is saved;
 * table and column names complete from the connection's schema as there.
 */
export async function definitionForm(view: HTMLElement, existing: any | null, onSaved?: () => void, draft?: Draft | null): Promise<void> {
  const start = existing ?? draft ?? null;
  const connections = await get<{ connections: Array<{ name: string; db: string }> }>('/api/v1/connections').catch(() => ({ connections: [] }));
  const name = h('input', { value: existing?.name ?? '', required: true, disabled: existing !== null, autocomplete: 'off' });
  const connection = h('select', {}, h('option', { value: '' }, '(none)'), connections.connections.map((c) => h('option', { value: c.name, selected: start?.connection_name === c.name }, c.name)));
  const description = h('input', { value: existing?.description ?? '' });
  const collection = h('input', { value: existing?.collection ?? '', disabled: existing !== null });
  const cacheTtl = h('input', { type: 'number', min: 0, value: existing?.cache_ttl ?? '' });
  const editor = sqlEditor(start?.sql ?? '');
  const mongo = mongoFields(existing);
  const sqlField = h('div', { class: 'field' }, h('span', { class: 'label' }, 'SQL (bind values as :name)'), editor.el);
  const isMongo = () => connections.connections.find((c) => c.name === connection.value)?.db === 'mongodb';
  const runDraft = h('button', { type: 'button', onclick: () => void draftRun() }, 'Run draft');
  const showFields = () => ((sqlField.hidden = isMongo()), (mongo.el.hidden = !isMongo()), (runDraft.hidden = isMongo() || !can('data.run')));
  connection.addEventListener('change', showFields);
  showFields();
  // Names completed from the chosen connection's schema, as in the workbench; none when it cannot be read.
  let tables: SchemaTable[] = [];
  editor.el.appendChild(attachCompletion(editor.textarea, () => tables));
  const loadTables = async () => {
    tables = [];
    const chosen = connection.value;
    if (!chosen || isMongo()) return;
    const schema = await get<{ tables?: SchemaTable[] }>(`/api/v1/connections/${enc(chosen)}/schema`).catch(() => null);
    if (connection.value === chosen) tables = schema?.tables ?? [];
  };
  connection.addEventListener('change', () => void loadTables());
  void loadTables();
  const params = paramsEditor((start?.parameters ?? {}) as Record<string, Rules>);
  const out = h('div', { 'aria-live': 'polite' });
  const draftOut = h('div');
  let drafted: Runner | null = null;
  const draftRun = () => {
    drafted ??= runner(() => ({ sql: editor.textarea.value, connection: connection.value }), editor.textarea);
    if (!drafted.el.isConnected) replace(draftOut, h('h2', {}, 'Draft run'), drafted.el);
    return drafted.run(1);
  };
  runOnCtrlEnter(editor.textarea, () => void (runDraft.hidden || draftRun()));
  const definition = () => ({
    ...(isMongo() ? mongo.value() : { sql: editor.textarea.value }),
    connection_name: connection.value || null,
    description: description.value || null,
    parameters: params.value(),
    ...(cacheTtl.value !== '' ? { cache_ttl: Number(cacheTtl.value) } : {}),
  });
  const validate = () =>
    attempt(out, async () => {
      const d = definition();
      const r = await api('POST', '/api/v1/queries/validate', { name: name.value.trim() || 'draft', ...d, connection_name: d.connection_name ?? undefined });
      if (isMongo()) {
        const used = filterMarkers((d as Record<string, unknown>).mongo_filter);
        r.parameters = { used, undeclared: used.filter((p) => !(p in d.parameters)) };
      }
      for (const undeclared of r.parameters?.undeclared ?? []) params.add(undeclared);
      replace(
        out,
        h('div', { class: r.valid ? 'ok' : 'error', role: 'status', 'data-testid': 'validation' }, r.valid ? 'Valid.' : 'Not valid:', r.valid ? '' : h('ul', {}, Object.entries(r.errors ?? {}).map(([k, v]) => h('li', {}, h('code', {}, k), ': ', String(v))))),
        h('dl', { class: 'facts' },
          h('dt', {}, 'Dialect'), h('dd', {}, r.dialect),
          h('dt', {}, 'Parameters used'), h('dd', {}, (r.parameters?.used ?? []).join(', ') || '—'),
          h('dt', {}, 'Undeclared (added above)'), h('dd', {}, (r.parameters?.undeclared ?? []).join(', ') || '—'),
          h('dt', {}, 'Tables read'), h('dd', {}, (r.tables ?? []).join(', ') || r.tables_error || '—'),
          h('dt', {}, 'Statement'), h('dd', {}, r.statement ? `${r.statement.keyword ?? ''} ${r.statement.read ? '(read)' : '(write)'} ${r.statement.refusal ?? ''}` : '—'),
        ),
      );
    });
  const save = (publish: boolean) =>
    attempt(out, async () => {
      const d = definition();
      if (existing) await api('POST', `/api/v1/queries/${enc(existing.name)}/versions`, { ...d, publish });
      else await api('POST', '/api/v1/queries', { name: name.value.trim(), ...d, ...(collection.value ? { collection: collection.value } : {}), publish });
      toast(publish ? 'Saved and published.' : 'Saved as a draft.');
      if (onSaved) onSaved();
      else location.hash = `#/queries/${enc(name.value.trim())}`;
    });
  replace(
    view,
    !existing && h('p', {}, h('a', { href: '#/queries' }, '‹ Saved queries')),
    h('h1', {}, existing ? `New version of ${existing.name}` : 'New query'),
    h('form', { class: 'definition', onsubmit: (e: Event) => e.preventDefault() },
      h('div', { class: 'grid-form' }, field('Name', name), field('Connection', connection), field('Description', description), field('Collection', collection), field('Cache TTL (s)', cacheTtl)),
      sqlField,
      mongo.el,
      h('h2', {}, 'Parameters'),
      params.el,
      h('div', { class: 'actions' },
        h('button', { type: 'button', onclick: validate }, 'Validate'),
        runDraft,
        h('button', { type: 'button', onclick: () => save(false) }, 'Save draft'),
        h('button', { type: 'button', class: 'primary', onclick: () => save(true) }, 'Save and publish'),
      ),
      out,
      draftOut,
    ),
  );
}

export function errorInto(el: HTMLElement, error: unknown): void {
  replace(el, errorBox(error));
}
