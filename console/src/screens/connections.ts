import { api, enc, get, ifMatch, request } from '../api.ts';
import { askReason, attempt, dialog, errorBox, field, fmtTime, h, pagedTable, parseJson, replace, toast } from '../dom.ts';
import { can } from '../state.ts';
import { schemaScreen } from './schema.ts';

interface Connection {
  name: string;
  db: string;
  host?: string | null;
  port?: number | null;
  database?: string | null;
  user?: string | null;
  password?: string | null;
  active: boolean;
  options?: Record<string, unknown>;
  usage?: { queries: number; errors: number; rows: number; avg_duration_ms: number | null };
  updated_at?: string;
  /** What the database user may do beyond reading; empty until `privileges_checked`. */
  warnings?: string[];
  privileges_checked?: boolean;
}

/** The privileges cell: how many warnings (each in the tooltip), none, or not asked yet. */
function privilegesCell(c: Connection): HTMLElement | string {
  const warnings = c.warnings ?? [];
  if (warnings.length > 0) return h('span', { class: 'warning', title: warnings.join('\n') }, `${warnings.length} warning${warnings.length === 1 ? '' : 's'}`);
  return c.privileges_checked ? 'least privilege' : 'not checked yet';
}

/** Each warning as a paragraph of its own. */
const warningLines = (warnings: string[] | undefined): HTMLElement[] => (warnings ?? []).map((w) => h('p', { class: 'warning' }, w));

/** Connections: list, create, test, edit, delete with a reason, schema browser (schema.ts), deleted ones. */
export async function connectionsScreen(view: HTMLElement, args: string[]): Promise<void> {
  if (args[0] === 'schema' && args[1]) return schemaScreen(view, args[1], args[2]);
  const list = h('div');
  const deleted = h('div');
  replace(
    view,
    h('div', { class: 'title-row' }, h('h1', {}, 'Connections'), can('connections.write') && h('button', { type: 'button', class: 'primary', onclick: () => editor(null, reload) }, 'New connection')),
    list,
    h('h2', {}, 'Deleted connections'),
    deleted,
  );
  async function reload() {
    const data = await attempt(list, () => get<{ connections: Connection[] }>('/api/v1/connections'));
    if (data) list.replaceChildren(table(data.connections, reload));
    const gone = await attempt(deleted, () => get<{ connections?: any[] }>('/api/v1/connections/deleted'));
    if (gone) {
      const rows: any[] = Array.isArray(gone) ? gone : (gone.connections ?? (gone as any).items ?? []);
      deleted.replaceChildren(
        pagedTable([{ label: 'Name', cell: (r) => r.name }, { label: 'Type', cell: (r) => r.db }, { label: 'Deleted', cell: (r) => fmtTime(r.deleted_at) }, { label: 'By', cell: (r) => r.deleted_by ?? '—' }, { label: 'Reason', cell: (r) => r.reason ?? r.deleted_reason ?? '—' }], rows, { empty: 'No deleted connections.', label: 'Deleted connections' }),
      );
    }
  }
  await reload();
}

function table(rows: Connection[], reload: () => Promise<void>): HTMLElement {
  const write = can('connections.write');
  return pagedTable(
    [
      { label: 'Name', cell: (c) => h('a', { href: `#/connections/schema/${enc(c.name)}` }, c.name) },
      { label: 'Type', cell: (c) => c.db },
      { label: 'Active', cell: (c) => (c.active ? 'yes' : 'no') },
      { label: 'Privileges', cell: privilegesCell },
      { label: 'Queries run', cell: (c) => c.usage?.queries ?? 0 },
      { label: 'Errors', cell: (c) => c.usage?.errors ?? 0 },
      { label: 'Avg ms', cell: (c) => c.usage?.avg_duration_ms?.toFixed(1) ?? '—' },
      {
        label: 'Actions',
        cell: (c) =>
          h(
            'div',
            { class: 'row-actions' },
            write && h('button', { type: 'button', onclick: () => test({ name: c.name }) }, 'Test'),
            h('a', { class: 'button', href: `#/connections/schema/${enc(c.name)}` }, 'Schema'),
            write && h('button', { type: 'button', onclick: async () => editor(await get<Connection>(`/api/v1/connections/${enc(c.name)}`), reload) }, 'Edit'),
            write && h('button', { type: 'button', class: 'danger', onclick: () => remove(c.name, reload) }, 'Delete'),
          ),
      },
    ],
    rows,
    { empty: 'No connections yet.', label: 'Connections' },
  );
}

async function test(body: Record<string, unknown>): Promise<void> {
  const out = h('div');
  const done = dialog('Connection test', out, (close) => h('button', { type: 'button', onclick: close }, 'Close'));
  const result = await attempt(out, () => api('POST', '/api/v1/connections/test', body));
  if (result) replace(out, h('p', { class: 'ok', role: 'status' }, `Reached in ${Math.round(result.duration_ms)} ms.`), warningLines(result.warnings));
  await done;
}

async function remove(name: string, reload: () => Promise<void>): Promise<void> {
  const reason = await askReason(`Delete connection ${name}`, 'Reason (kept with the deleted connection)');
  if (reason === null) return;
  try {
    await api('DELETE', `/api/v1/connections/${enc(name)}`, { reason });
    toast(`Deleted ${name}.`);
  } catch (error) {
    await dialog('Not deleted', errorBox(error), (close) => h('button', { type: 'button', onclick: close }, 'Close'));
  }
  await reload();
}

// Every type the API takes (services/connections/fields.ts): an edited connection keeps its own.
const DB_TYPES = ['postgres', 'mysql', 'duckdb', 'sqlite', 'mongodb', 'clickhouse', 'jdbc', 'h2'];

/** Create (null) or edit form; the password shows as stored (`********` keeps it). */
async function editor(existing: Connection | null, reload: () => Promise<void>): Promise<void> {
  const name = h('input', { value: existing?.name ?? '', required: true, disabled: existing !== null, autocomplete: 'off' });
  const db = h('select', {}, DB_TYPES.map((t) => h('option', { value: t, selected: existing?.db === t }, t)));
  const host = h('input', { value: existing?.host ?? '' });
  const port = h('input', { type: 'number', value: existing?.port ?? '' });
  const user = h('input', { value: existing?.user ?? '', autocomplete: 'off' });
  const password = h('input', { type: 'password', value: existing?.password ?? '', autocomplete: 'new-password' });
  const database = h('input', { value: existing?.database ?? '' });
  const active = h('input', { type: 'checkbox', checked: existing?.active ?? true });
  const options = h('textarea', { rows: 3, spellcheck: 'false' }, existing?.options && Object.keys(existing.options).length ? JSON.stringify(existing.options, null, 2) : '');
  const out = h('div', { 'aria-live': 'polite' }, warningLines(existing?.warnings));
  const body = (): Record<string, unknown> => {
    const b: Record<string, unknown> = { db: db.value, active: active.checked };
    if (!existing) b.name = name.value.trim();
    for (const [k, input] of Object.entries({ host, user, password, database })) if (input.value !== '') b[k] = input.value;
    if (port.value !== '') b.port = Number(port.value);
    const opts = parseJson('Options', options.value);
    if (opts !== undefined) b.options = opts;
    return b;
  };
  await dialog(
    existing ? `Edit connection ${existing.name}` : 'New connection',
    h('form', { class: 'grid-form', onsubmit: (e: Event) => e.preventDefault() }, field('Name', name), field('Type', db), field('Host', host), field('Port', port), field('User', user), field('Password', password, 'A ${SLUICE_REF_NAME} reference (server owners only) is expanded from the server environment.'), field('Database', database, 'sqlite/duckdb: a file path'), field('Active', active), field('Options (JSON)', options), out),
    (close) => [
      h('button', { type: 'button', onclick: close }, 'Cancel'),
      h('button', { type: 'button', onclick: () => attempt(out, async () => {
        const b = body();
        const r = await api('POST', '/api/v1/connections/test', existing ? { ...b, name: existing.name } : b);
        replace(out, h('p', { class: 'ok', role: 'status' }, `Test passed in ${Math.round(r.duration_ms)} ms.`), warningLines(r.warnings));
      }) }, 'Test'),
      h('button', { type: 'button', class: 'primary', onclick: () => attempt(out, async () => {
        const saved: Connection = existing
          ? await api('PATCH', `/api/v1/connections/${enc(existing.name)}`, body(), ifMatch(await fetchEtag(existing.name)))
          : await api('POST', '/api/v1/connections', body());
        toast(saved.warnings?.length ? `Saved, with ${saved.warnings.length} privilege warning(s): see the Privileges column.` : 'Saved.');
        close();
      }) }, 'Save'),
    ],
  );
  await reload();
}

async function fetchEtag(name: string): Promise<string | null> {
  return (await request('GET', `/api/v1/connections/${enc(name)}`)).headers.get('etag');
}
