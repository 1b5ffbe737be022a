import { api, enc, get } from '../api.ts';
import { attempt, dialog, field, h, pagedTable, replace, toast } from '../dom.ts';
import { can } from '../state.ts';

/**
 * A connection's tables and columns with their descriptions and the
 * connection's notes; writers edit and import them. `database` is another
 * database on the same server (`?database=`), listed without descriptions:
 * they and the notes belong to the connection's own database.
 */
export async function schemaScreen(view: HTMLElement, name: string, database?: string): Promise<void> {
  const out = h('div');
  const picker = h('div');
  const path = `/api/v1/connections/${enc(name)}/descriptions`;
  const write = can('connections.write') && database === undefined;
  const reload = () => schemaScreen(view, name, database);
  replace(
    view,
    h('p', {}, h('a', { href: '#/connections' }, '‹ Connections')),
    h('div', { class: 'title-row' }, h('h1', {}, database === undefined ? `Schema of ${name}` : `Schema of ${name} · ${database}`), write && h('div', { class: 'row-actions' }, h('button', { type: 'button', onclick: () => importDialog(path, reload) }, 'Import descriptions'))),
    picker,
    out,
  );
  if (can('connections.write')) void databasePicker(picker, name, database);
  const schema = await attempt(out, () => get(`/api/v1/connections/${enc(name)}/schema${database === undefined ? '' : `?database=${enc(database)}`}`));
  if (!schema) return;
  const tables: any[] = schema.tables ?? [];
  replace(
    out,
    database === undefined
      ? h('section', { 'aria-label': 'Notes' }, h('h2', {}, 'Notes'), h('p', { class: schema.notes ? '' : 'muted', 'data-testid': 'notes' }, schema.notes ?? 'No notes.'), write && h('button', { type: 'button', onclick: () => editNotes(path, schema.notes, reload) }, 'Edit notes'))
      : h('p', { class: 'muted' }, "Another database on the connection's server: descriptions and notes belong to the connection's own database."),
    tables.length === 0 && h('p', { class: 'empty' }, 'No tables.'),
    pagedTable(
      [
        { label: 'Table', cell: (t) => h('strong', {}, t.name) },
        { label: 'Description', cell: (t) => t.description ?? '' },
        { label: 'Columns', cell: (t) => h('ul', { class: 'columns' }, (t.columns ?? []).map((c: any) => h('li', {}, h('code', {}, c.name), ' ', h('span', { class: 'muted' }, c.type ?? ''), c.description ? ` — ${c.description}` : ''))) },
        ...(write ? [{ label: 'Actions', cell: (t: any) => h('button', { type: 'button', onclick: () => editDescriptions(path, t, reload) }, 'Edit description') }] : []),
      ],
      tables,
      { pageSize: 10, label: 'Tables' },
    ),
  );
}

/**
 * The server's other databases (`POST /api/v1/connections/databases`, which
 * needs connections.write as every probe does), offered when it has several;
 * choosing one opens its schema. Shows nothing if the listing fails: the
 * schema below stands on its own.
 */
async function databasePicker(target: HTMLElement, name: string, current: string | undefined): Promise<void> {
  let listed: string[];
  let own: string | null;
  try {
    [listed, own] = await Promise.all([api('POST', '/api/v1/connections/databases', { name }).then((r) => r.databases ?? []), get(`/api/v1/connections/${enc(name)}`).then((c) => c.database ?? null)]);
  } catch {
    return;
  }
  // One database (a DuckDB or SQLite file lists its catalog's own name): nothing to choose.
  if (listed.length < 2) return;
  const others = listed.filter((database) => database !== own);
  const select = h(
    'select',
    { onchange: () => (location.hash = `#/connections/schema/${enc(name)}${select.value ? `/${enc(select.value)}` : ''}`) },
    h('option', { value: '' }, own ? `${own} (the connection's own)` : "The connection's own"),
    others.map((database) => h('option', { value: database }, database)),
  );
  select.value = current ?? '';
  replace(target, h('div', { class: 'grid-form' }, field('Database', select, 'Other databases on the same server')));
}

/** A table's description and each column's, in one PATCH of the items changed (an emptied one is removed). */
async function editDescriptions(path: string, table: any, reload: () => Promise<void>): Promise<void> {
  const boxes: Array<[string | null, string, HTMLTextAreaElement]> = [[null, table.description ?? '', h('textarea', { rows: 2 }, table.description ?? '')]];
  for (const c of table.columns ?? []) boxes.push([c.name, c.description ?? '', h('textarea', { rows: 1 }, c.description ?? '')]);
  const out = h('div', { 'aria-live': 'polite' });
  let saved = false;
  await dialog(`Describe ${table.name}`, h('form', { class: 'grid-form', onsubmit: (e: Event) => e.preventDefault() }, boxes.map(([column, , box]) => field(column === null ? 'Table' : column, box)), out), (close) => [
    h('button', { type: 'button', onclick: close }, 'Cancel'),
    h('button', { type: 'button', class: 'primary', onclick: () => attempt(out, async () => {
      const items = boxes.filter(([, before, box]) => box.value.trim() !== before).map(([column, , box]) => ({ table: table.name, column, description: box.value.trim() }));
      if (items.length) await api('PATCH', path, { items });
      saved = true;
      close();
    }) }, 'Save'),
  ]);
  if (saved) (toast('Descriptions saved.'), await reload());
}

async function editNotes(path: string, notes: string | null, reload: () => Promise<void>): Promise<void> {
  const box = h('textarea', { rows: 5 }, notes ?? '');
  const out = h('div', { 'aria-live': 'polite' });
  let saved = false;
  await dialog('Connection notes', [field('Notes', box, 'Empty removes them'), out], (close) => [
    h('button', { type: 'button', onclick: close }, 'Cancel'),
    h('button', { type: 'button', class: 'primary', onclick: () => attempt(out, async () => (await api('PATCH', path, { notes: box.value.trim() || null }), (saved = true), close())) }, 'Save'),
  ]);
  if (saved) (toast('Notes saved.'), await reload());
}

/**
 * Descriptions from the database's own comments (the import endpoint), or
 * from a JSON file shaped as GET .../descriptions answers (`{notes, items}`),
 * sent as one PATCH.
 */
async function importDialog(path: string, reload: () => Promise<void>): Promise<void> {
  const file = h('input', { type: 'file', accept: '.json,application/json' });
  const out = h('div', { 'aria-live': 'polite' });
  let changed = false;
  await dialog('Import descriptions', [
    h('p', {}, "The database's comments replace the descriptions of the same tables and columns; the others stay."),
    field('Descriptions file (JSON)', file, 'As GET …/descriptions answers: {"notes": …, "items": [{"table", "column", "description"}]}'),
    out,
  ], (close) => [
    h('button', { type: 'button', onclick: close }, 'Close'),
    h('button', { type: 'button', onclick: () => attempt(out, async () => {
      const text = await file.files?.[0]?.text();
      if (text === undefined) throw new Error('Choose a file first.');
      let parsed: any;
      try {
        parsed = JSON.parse(text);
      } catch (e) {
        throw new Error(`The file is not valid JSON: ${(e as Error).message}`);
      }
      const items = (parsed.items ?? []).map((i: any) => ({ table: i.table, column: i.column ?? null, description: i.description ?? '' }));
      await api('PATCH', path, { items, ...(parsed.notes !== undefined ? { notes: parsed.notes } : {}) });
      changed = true;
      replace(out, h('p', { class: 'ok', role: 'status' }, `Loaded ${items.length} descriptions from the file.`));
    }) }, 'Load file'),
    h('button', { type: 'button', class: 'primary', onclick: () => attempt(out, async () => {
      const r = await api('POST', `${path}/import`);
      changed = true;
      replace(out, h('p', { class: 'ok', role: 'status' }, `Imported from the database: ${r.found} comments found, ${r.changed.length} changed.`));
    }) }, 'From the database'),
  ]);
  if (changed) await reload();
}
