import { h, replace } from '../dom.ts';
import { session } from '../session.ts';

/** One statement run from the workbench: its text and connection, never parameter values (they may be secrets). */
export interface Statement {
  sql: string;
  connection: string;
  at: string;
}

/** The last statements kept in this browser, newest first. */
const KEPT = 50;
const storageKey = () => `sluice.workbench.history.${session.workspace()}`;

export function readHistory(): Statement[] {
  try {
    const list = JSON.parse(localStorage.getItem(storageKey()) ?? '[]');
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** Keeps a statement first in the list (once: running it again moves it up). */
export function remember(sql: string, connection: string): void {
  const list = readHistory().filter((s) => s.sql !== sql || s.connection !== connection);
  list.unshift({ sql, connection, at: new Date().toISOString() });
  try {
    localStorage.setItem(storageKey(), JSON.stringify(list.slice(0, KEPT)));
  } catch {
    // Storage full or refused: the history is a convenience, the run goes on.
  }
}

/** The history as a list of buttons; a click gives the statement back to `restore`. */
export function historyList(target: HTMLElement, restore: (s: Statement) => void): void {
  const list = readHistory();
  replace(
    target,
    list.length === 0
      ? h('p', { class: 'empty' }, 'Statements you run here are kept in this browser.')
      : h('ol', { class: 'wb-history' }, list.map((s) => h('li', {}, h('button', { type: 'button', class: 'link', title: `${s.connection} · ${s.at}`, onclick: () => restore(s) }, s.sql.replace(/\s+/g, ' ').slice(0, 120))))),
  );
}
