import { enc, get } from '../api.ts';
import { attempt, field, h, replace } from '../dom.ts';
import { sqlEditor } from '../sql-editor.ts';
import { can } from '../state.ts';
import { type SchemaTable, attachCompletion } from './completion.ts';
import { offerDraft } from './draft.ts';
import { historyList, readHistory } from './history.ts';
import { DOWNLOAD_FORMATS, runOnCtrlEnter, runner } from './runner.ts';
import { schemaSidebar } from './schema-sidebar.ts';
import { markers, quoteName } from './sql-text.ts';

/** The connection last chosen here, so coming back finds it. */
const LAST = 'sluice.workbench.connection';

/**
 * The SQL workbench: write a statement beside the connection's schema (names
 * completed from it), run it through `POST /execute_sql` with the caller's own
 * rights, read the rows exactly, explain, download, save it as a query.
 */
export async function workbenchScreen(view: HTMLElement): Promise<void> {
  const listed = await get<{ connections: Array<{ name: string; db: string; active: boolean }> }>('/api/v1/connections');
  const connections = listed.connections.filter((c) => c.db !== 'mongodb');
  const select = h('select', {}, connections.map((c) => h('option', { value: c.name }, c.name)));
  const last = localStorage.getItem(LAST);
  if (connections.some((c) => c.name === last)) select.value = last!;
  const editor = sqlEditor(readHistory().find((s) => s.connection === select.value)?.sql ?? '', 'SQL');
  const textarea = editor.textarea;
  let tables: SchemaTable[] = [];
  editor.el.appendChild(attachCompletion(textarea, () => tables));
  const run = runner(() => ({ sql: textarea.value, connection: select.value }), textarea);
  const schemaBox = h('div');
  const historyBox = h('div');
  const format = h('select', {}, DOWNLOAD_FORMATS.map((f) => h('option', { value: f }, f)));

  const setSql = (sql: string) => {
    textarea.value = sql;
    textarea.dispatchEvent(new Event('input'));
  };
  const insert = (name: string) => {
    textarea.focus();
    textarea.setRangeText(name, textarea.selectionStart, textarea.selectionEnd, 'end');
    textarea.dispatchEvent(new Event('input'));
  };
  const runNow = async () => {
    await run.run(1);
    drawHistory();
  };
  const drawHistory = () =>
    historyList(historyBox, (s) => {
      if (s.connection !== select.value && connections.some((c) => c.name === s.connection)) {
        select.value = s.connection;
        void loadSchema();
      }
      setSql(s.sql);
      textarea.focus();
    });
  const loadSchema = async () => {
    localStorage.setItem(LAST, select.value);
    tables = [];
    const db = connections.find((c) => c.name === select.value)?.db ?? '';
    const schema = await attempt(schemaBox, () => get(`/api/v1/connections/${enc(select.value)}/schema`));
    if (!schema) return;
    tables = schema.tables ?? [];
    schemaSidebar(schemaBox, tables, { insert, firstRows: (t) => (setSql(`select * from ${quoteName(db, t.name)} limit 50`), void runNow()) });
  };
  const saveAsQuery = () => {
    offerDraft({ sql: textarea.value, connection_name: select.value, parameters: Object.fromEntries(markers(textarea.value).map((name) => [name, {}])) });
    location.hash = '#/queries/new';
  };

  select.addEventListener('change', () => void loadSchema());
  textarea.addEventListener('input', () => run.syncParams(textarea.value));
  runOnCtrlEnter(textarea, () => void runNow());

  if (connections.length === 0) {
    replace(view, h('h1', {}, 'SQL workbench'), h('p', { class: 'empty' }, 'No SQL connection yet: add one under ', h('a', { href: '#/connections' }, 'Connections'), '.'));
    return;
  }
  replace(
    view,
    h('h1', {}, 'SQL workbench'),
    h('div', { class: 'workbench' },
      h('aside', { class: 'wb-side', 'aria-label': 'Schema and history' },
        h('h2', {}, 'Schema'), schemaBox,
        h('h2', {}, 'History'), historyBox),
      h('div', { class: 'wb-main' },
        field('Connection', select),
        h('div', { class: 'field' }, h('span', { class: 'label' }, 'SQL (Ctrl+Enter runs; bind values as :name)'), editor.el),
        h('div', { class: 'actions' },
          h('button', { type: 'button', class: 'primary', onclick: () => void runNow() }, 'Run'),
          h('button', { type: 'button', onclick: () => void run.explain() }, 'Explain'),
          field('Download format', format),
          h('button', { type: 'button', onclick: () => void run.download(format.value) }, 'Download'),
          can('queries.write') && h('button', { type: 'button', onclick: saveAsQuery }, 'Save as query')),
        run.el)),
  );
  run.syncParams(textarea.value);
  drawHistory();
  await loadSchema();
}
