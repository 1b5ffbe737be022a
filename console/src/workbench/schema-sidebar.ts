import { h, replace } from '../dom.ts';
import type { SchemaTable } from './completion.ts';

export interface SidebarActions {
  /** Puts a name in the editor at the cursor. */
  insert: (name: string) => void;
  /** Runs `select * from <table> limit 50`. */
  firstRows: (table: SchemaTable) => void;
}

/** The chosen connection's tables, each opening to its columns with types and descriptions; a name is a button that inserts it. */
export function schemaSidebar(target: HTMLElement, tables: SchemaTable[], actions: SidebarActions): void {
  replace(
    target,
    tables.length === 0
      ? h('p', { class: 'empty' }, 'No tables.')
      : h('ul', { class: 'wb-tables' }, tables.map((t) => tableItem(t, actions))),
  );
}

function tableItem(t: SchemaTable, actions: SidebarActions): HTMLElement {
  const columns = h('ul', { class: 'wb-columns', hidden: true },
    t.columns.map((c) => h('li', {},
      h('button', { type: 'button', class: 'link', title: c.description ?? undefined, onclick: () => actions.insert(c.name) }, c.name),
      ' ', h('span', { class: 'muted' }, c.type ?? ''),
      c.description && h('small', { class: 'muted' }, ` — ${c.description}`))));
  const toggle = h('button', { type: 'button', class: 'toggle', 'aria-expanded': 'false', 'aria-label': `Columns of ${t.name}` }, '▸');
  toggle.addEventListener('click', () => {
    columns.hidden = !columns.hidden;
    toggle.setAttribute('aria-expanded', String(!columns.hidden));
    toggle.textContent = columns.hidden ? '▸' : '▾';
  });
  return h('li', {},
    h('div', { class: 'wb-table' },
      toggle,
      h('button', { type: 'button', class: 'link', title: t.description ?? undefined, onclick: () => actions.insert(t.name) }, t.name),
      h('button', { type: 'button', class: 'small', 'aria-label': `First rows of ${t.name}`, onclick: () => actions.firstRows(t) }, 'rows')),
    t.description && h('small', { class: 'muted' }, t.description),
    columns);
}
