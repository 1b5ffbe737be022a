import { get, qs } from '../api.ts';
import { h } from '../dom.ts';
import { can } from '../state.ts';

/** One figure of the overview: what it counts, the screen it links to, and how it is read. */
interface Count {
  label: string;
  href: string;
  capability: string;
  read: (lists: Lists) => Promise<number | string>;
  /** Read for the next steps, not shown. */
  hidden?: boolean;
}

/** A list two figures read, fetched once. */
interface Lists {
  connections: () => Promise<Array<{ name: string }>>;
}

/** Errors are few, so they are counted by paging the history; past this many the figure says "N+". */
const MAX_ERRORS = 5000;

/** Today's date as the browser reads it: history reads a zoneless `since` in the server's zone, as usage counts its days. */
const today = () => {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

async function errorsToday(): Promise<number | string> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const page: { items: unknown[]; next_cursor: string | null } = await get(`/api/v1/history${qs({ status: 'error', since: today(), limit: 1000, cursor })}`);
    count += page.items.length;
    cursor = page.next_cursor;
  } while (cursor && count < MAX_ERRORS);
  return cursor ? `${count}+` : count;
}

export const COUNTS: Count[] = [
  { label: 'Connections', href: '#/connections', capability: 'connections.read', read: async (lists) => (await lists.connections()).length },
  // A fresh install serves the bundled `examples` connection (docs/reference/examples.md): it is not yet the operator's own.
  { label: 'Own connections', href: '#/connections', capability: 'connections.read', hidden: true, read: async (lists) => (await lists.connections()).filter((c) => c.name !== 'examples').length },
  { label: 'Queries published', href: '#/queries', capability: 'queries.read', read: async () => (await get<{ queries: unknown[] }>('/api/v1/queries?status=published')).queries.length },
  { label: 'Queries in draft', href: '#/queries', capability: 'queries.read', read: async () => (await get<{ queries: unknown[] }>('/api/v1/queries?status=draft')).queries.length },
  { label: 'API keys', href: '#/keys', capability: 'keys.read', read: async () => (await get<{ api_keys: unknown[] }>('/api/v1/api-keys')).api_keys.length },
  // Calls as usage counts them: every admitted run, cache hits and failures included (docs/reference/usage.md).
  { label: 'Runs today', href: '#/history', capability: 'usage.read', read: async () => (await get<{ callers: Array<{ day?: { calls?: number } }> }>('/api/v1/usage/quotas')).callers.reduce((n, c) => n + (c.day?.calls ?? 0), 0) },
  { label: 'Errors today', href: '#/history', capability: 'history.read', read: errorsToday },
  { label: 'Alerts', href: '#/alerts', capability: 'alerts.read', read: async () => (await get<{ alerts: unknown[] }>('/api/v1/alerts')).alerts.length },
];

/** The figures the role may read, each drawn when its call answers ("—" if it fails). */
export async function readCounts(): Promise<Map<string, number | string>> {
  const shown = COUNTS.filter((c) => can(c.capability));
  let connections: Promise<Array<{ name: string }>> | undefined;
  const lists: Lists = { connections: () => (connections ??= get<{ connections: Array<{ name: string }> }>('/api/v1/connections').then((r) => r.connections)) };
  const values = await Promise.all(shown.map((c) => c.read(lists).catch(() => '—')));
  return new Map(shown.map((c, i) => [c.label, values[i]]));
}

export function countCards(values: Map<string, number | string>): HTMLElement {
  return h('ul', { class: 'counts', 'aria-label': 'Counts' },
    COUNTS.filter((c) => !c.hidden && values.has(c.label)).map((c) =>
      h('li', { class: 'card', 'data-count': c.label }, h('a', { href: c.href }, h('span', { class: 'count-value' }, String(values.get(c.label))), h('span', { class: 'count-label' }, c.label)))));
}
