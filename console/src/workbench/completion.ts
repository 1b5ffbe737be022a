import { h, replace } from '../dom.ts';

export interface SchemaColumn {
  name: string;
  type?: string;
  description?: string | null;
}
export interface SchemaTable {
  name: string;
  type?: string;
  description?: string | null;
  columns: SchemaColumn[];
}

interface Candidate {
  name: string;
  kind: string;
  hint: string | null;
}

/** Words after which a table name comes. */
const TABLE_AFTER = /\b(from|join|into|update|table|describe)\s+[\w.]*$/i;

/**
 * Completion of table and column names as one types: after `from`/`join` the
 * tables, after `name.` (a table or its alias) that table's columns, else the
 * columns of the tables the statement names, then the tables. The list is a
 * `listbox` the textarea points at (aria-activedescendant): arrows move,
 * Enter or Tab accepts, Escape closes.
 */
export function attachCompletion(textarea: HTMLTextAreaElement, tables: () => SchemaTable[]): HTMLElement {
  const id = `completions-${Math.random().toString(36).slice(2, 8)}`;
  const list = h('ul', { class: 'completions', role: 'listbox', id, 'aria-label': 'Completions', hidden: true });
  textarea.setAttribute('aria-autocomplete', 'list');
  textarea.setAttribute('aria-controls', id);
  let shown: Candidate[] = [];
  let active = 0;
  let word = '';

  const close = () => {
    list.hidden = true;
    shown = [];
    textarea.removeAttribute('aria-activedescendant');
  };
  const mark = (i: number) => {
    active = (i + shown.length) % shown.length;
    for (const [j, li] of [...list.children].entries()) li.setAttribute('aria-selected', String(j === active));
    textarea.setAttribute('aria-activedescendant', `${id}-${active}`);
    list.children[active]?.scrollIntoView({ block: 'nearest' });
  };
  const accept = (i: number) => {
    const end = textarea.selectionStart;
    textarea.setRangeText(shown[i].name, end - word.length, end, 'end');
    close();
    // Untrusted: the highlighting follows, the list does not open again.
    textarea.dispatchEvent(new Event('input'));
  };
  const open = () => {
    const before = textarea.value.slice(0, textarea.selectionStart);
    const found = candidates(before, textarea.value, tables());
    word = found.word;
    shown = found.list.slice(0, 30);
    if (shown.length === 0) return close();
    replace(list, shown.map((c, i) =>
      h('li', { role: 'option', id: `${id}-${i}`, 'aria-selected': 'false', onmousedown: (e: Event) => (e.preventDefault(), accept(i)) },
        h('span', { class: 'name' }, c.name), ' ', h('span', { class: 'muted' }, c.kind), c.hint && h('small', {}, ` — ${c.hint}`))));
    list.hidden = false;
    mark(0);
  };

  textarea.addEventListener('input', (e) => (e.isTrusted ? open() : undefined));
  textarea.addEventListener('blur', close);
  textarea.addEventListener('keydown', (e) => {
    if (list.hidden) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') mark(active + (e.key === 'ArrowDown' ? 1 : -1));
    else if ((e.key === 'Enter' || e.key === 'Tab') && !e.ctrlKey && !e.metaKey) accept(active);
    else if (e.key === 'Escape') close();
    else return;
    e.preventDefault();
    e.stopPropagation();
  });
  return list;
}

function candidates(before: string, sql: string, tables: SchemaTable[]): { word: string; list: Candidate[] } {
  const dotted = /([A-Za-z_][\w]*)\.(\w*)$/.exec(before);
  const lower = (s: string) => s.toLowerCase();
  const starts = (prefix: string) => (c: Candidate) => lower(c.name).startsWith(lower(prefix));
  const ofTable = (t: SchemaTable): Candidate[] => t.columns.map((c) => ({ name: c.name, kind: c.type ?? 'column', hint: c.description ?? null }));
  const asTable = (t: SchemaTable): Candidate => ({ name: t.name, kind: t.type ?? 'table', hint: t.description ?? null });
  if (dotted) {
    const [, qualifier, word] = dotted;
    const table = tables.find((t) => lower(t.name) === lower(qualifier) || lower(t.name.split('.').pop()!) === lower(qualifier)) ?? aliased(sql, qualifier, tables);
    return { word, list: table ? ofTable(table).filter(starts(word)) : [] };
  }
  const word = /\w*$/.exec(before)![0];
  if (word === '') return { word, list: [] };
  const tableList = tables.map(asTable).filter(starts(word));
  if (TABLE_AFTER.test(before)) return { word, list: tableList };
  const named = tables.filter((t) => new RegExp(`\\b${t.name.replace(/[.$]/g, '\\$&')}\\b`, 'i').test(sql));
  const columns = named.flatMap(ofTable).filter(starts(word)).filter((c) => lower(c.name) !== lower(word));
  return { word, list: [...columns, ...tableList] };
}

/** The table an alias stands for: `from films f`, `join films as f`. */
function aliased(sql: string, alias: string, tables: SchemaTable[]): SchemaTable | undefined {
  for (const m of sql.matchAll(/\b(?:from|join)\s+([\w.]+)\s+(?:as\s+)?(\w+)/gi)) {
    if (m[2].toLowerCase() === alias.toLowerCase()) return tables.find((t) => t.name.toLowerCase() === m[1].toLowerCase());
  }
  return undefined;
}
