import { api, enc, get, qs, request } from '../api.ts';
import { type Column, attempt, confirmStep, dialog, field, fmtTime, h, pagedTable, replace, toast } from '../dom.ts';
import { can } from '../state.ts';

/** Audit log with filters and cursor paging, and a chain check that says intact or broken. */
export async function auditScreen(view: HTMLElement): Promise<void> {
  const inputs = { action: h('input', { size: 12 }), actor: h('input', { size: 12 }), target: h('input', { size: 12 }), q: h('input', { size: 12 }) };
  const out = h('div');
  const verdict = h('div', { 'aria-live': 'polite' });
  const cursors: Array<string | null> = [null];
  let index = 0;
  const load = async () => {
    const data = await attempt(out, () => get<{ items: any[]; next_cursor: string | null }>(`/api/v1/audit${qs({ ...Object.fromEntries(Object.entries(inputs).map(([k, i]) => [k, i.value])), limit: 25, cursor: cursors[index] })}`));
    if (!data) return;
    cursors[index + 1] = data.next_cursor;
    replace(
      out,
      pagedTable([{ label: 'Seq', cell: (e) => e.seq }, { label: 'Time', cell: (e) => fmtTime(e.timestamp ?? e.time) }, { label: 'Actor', cell: (e) => e.actor }, { label: 'Action', cell: (e) => h('code', {}, e.action) }, { label: 'Target', cell: (e) => e.target ?? '—' }, { label: 'Changes', cell: (e) => (e.changes ? h('code', { class: 'small' }, JSON.stringify(e.changes).slice(0, 160)) : '') }], data.items, { pageSize: 25, empty: 'No entries match.', label: 'Audit entries' }),
      h('nav', { class: 'pager', 'aria-label': 'Audit pages' },
        h('button', { type: 'button', disabled: index === 0, onclick: () => ((index -= 1), load()) }, '‹ Newer'),
        h('span', {}, `Page ${index + 1}`),
        h('button', { type: 'button', disabled: !data.next_cursor, onclick: () => ((index += 1), load()) }, 'Older ›'),
      ),
    );
  };
  const verify = () =>
    attempt(verdict, async () => {
      const r = await get('/api/v1/audit/verify');
      replace(verdict, r.intact
        ? h('p', { class: 'ok', role: 'status', 'data-testid': 'verdict' }, `Chain intact: entries ${r.first_seq ?? '—'} to ${r.last_seq ?? '—'}${r.keyed ? ', keyed' : ''}.`)
        : h('p', { class: 'error', role: 'status', 'data-testid': 'verdict' }, `Chain broken at entry ${r.break?.seq} (${r.break?.action}, ${fmtTime(r.break?.timestamp)}): ${r.break?.problem}.`));
    });
  replace(
    view,
    h('div', { class: 'title-row' }, h('h1', {}, 'Audit log'), h('button', { type: 'button', onclick: verify }, 'Verify chain')),
    verdict,
    h('form', { class: 'filters', onsubmit: (e: Event) => (e.preventDefault(), (index = 0), cursors.splice(1), load()) }, Object.entries(inputs).map(([k, i]) => field(k === 'q' ? 'Text' : k[0].toUpperCase() + k.slice(1), i)), h('button', { type: 'submit' }, 'Filter')),
    out,
  );
  await load();
}

export async function alertsScreen(view: HTMLElement): Promise<void> {
  const out = h('div');
  replace(view, h('h1', {}, 'Alerts'), out);
  const data = await attempt(out, () => get<{ alerts: any[] }>('/api/v1/alerts'));
  if (data) out.replaceChildren(pagedTable([{ label: 'Severity', cell: (a) => h('span', { class: `badge ${a.severity}` }, a.severity) }, { label: 'Alert', cell: (a) => h('code', {}, a.name) }, { label: 'Subject', cell: (a) => a.subject ?? '—' }, { label: 'Message', cell: (a) => a.message }], data.alerts, { empty: 'No alerts: all clear.', label: 'Alerts' }));
}

export async function settingsScreen(view: HTMLElement): Promise<void> {
  const out = h('div');
  replace(view, h('h1', {}, 'Settings'), h('p', { class: 'muted' }, 'Read-only: the server reads these from its environment.'), out);
  if (can('secrets.rotate')) view.appendChild(rekeyPanel());
  const data = await attempt(out, () => get<{ sections: SettingsSection[] }>('/api/v1/settings'));
  if (!data) return;
  replace(out, data.sections.map((s) => h('details', { class: 'card', open: s.rows.some((r) => r.source === 'env') }, h('summary', {}, s.title), h('p', { class: 'muted' }, s.description ?? ''), pagedTable<SettingRow>(SETTING_COLUMNS, s.rows, { pageSize: 100, label: s.title }))));
}

/** A row of `GET /api/v1/settings` (docs/reference/settings.md). */
interface SettingRow {
  variable: string;
  value: string | null;
  source: 'env' | 'default';
  env_value: string | null;
  secret: boolean;
}

interface SettingsSection {
  title: string;
  description?: string;
  rows: SettingRow[];
}

const SETTING_COLUMNS: Column<SettingRow>[] = [
  { label: 'Variable', cell: (r) => h('code', {}, r.variable) },
  { label: 'Value', cell: (r) => r.value ?? '—' },
  { label: 'Source', cell: (r) => r.source },
  { label: 'Set to', cell: (r) => (r.env_value === null ? '—' : h('code', {}, r.env_value)) },
];

export async function cacheScreen(view: HTMLElement): Promise<void> {
  const out = h('div');
  replace(view, h('div', { class: 'title-row' }, h('h1', {}, 'Cache entries'), can('cache.write') && h('button', { type: 'button', class: 'danger', onclick: async () => (await confirmStep('Evict every entry', 'Every cached response is dropped.', 'Evict all')) && attempt(out, async () => (await api('DELETE', '/api/v1/cache/entries'), toast('Cache cleared.'), await cacheTable(out))) }, 'Evict all')), out);
  await cacheTable(out);
}

/** Cached responses (those `keep` lets through), soonest expiry first, each with Evict. */
export async function cacheTable(out: HTMLElement, keep: (entry: any) => boolean = () => true): Promise<void> {
  const write = can('cache.write');
  const data = await attempt(out, () => get<{ entries: any[] }>('/api/v1/cache/entries'));
  if (!data) return;
  out.replaceChildren(
    pagedTable(
      [
        { label: 'Query', cell: (e) => e.meta.query },
        { label: 'Version', cell: (e) => e.meta.version },
        { label: 'Connection', cell: (e) => e.meta.connection },
        { label: 'Format', cell: (e) => e.meta.format },
        { label: 'Page', cell: (e) => `${e.meta.page} (size ${e.meta.page_size})` },
        { label: 'Expires', cell: (e) => `${fmtTime(e.expires_at)} (${e.ttl_remaining_s} s)` },
        { label: 'Bytes', cell: (e) => e.size_bytes },
        { label: 'Actions', cell: (e) => write && h('button', { type: 'button', onclick: () => attempt(out, async () => (await api('DELETE', `/api/v1/cache/entries/${enc(e.key)}`), await cacheTable(out, keep))) }, 'Evict') },
      ],
      data.entries.filter(keep),
      { empty: 'Nothing cached.', label: 'Cache entries' },
    ),
  );
}

/** Collections: their queries, keys and roles; rename or merge; the Postman file. */
export async function collectionsScreen(view: HTMLElement): Promise<void> {
  const out = h('div');
  replace(view, h('h1', {}, 'Collections'), out);
  async function load() {
    const data = await attempt(out, () => get<{ collections: any[]; uncollected: string[] }>('/api/v1/collections'));
    if (!data) return;
    out.replaceChildren(
      pagedTable(
        [
          { label: 'Name', cell: (c) => h('strong', {}, c.name) },
          { label: 'Queries', cell: (c) => c.queries.join(', ') || '—' },
          { label: 'Keys', cell: (c) => c.keys.join(', ') || '—' },
          { label: 'Roles', cell: (c) => c.roles.join(', ') || '—' },
          { label: 'Actions', cell: (c) => h('div', { class: 'row-actions' }, h('button', { type: 'button', onclick: () => postman(c.name) }, 'Postman file'), can('collections.write') && h('button', { type: 'button', onclick: () => rename(c.name, load) }, 'Rename')) },
        ],
        data.collections,
        { empty: 'No collections.', label: 'Collections' },
      ),
      h('p', { class: 'muted' }, `Queries in no collection: ${data.uncollected.join(', ') || 'none'}.`),
    );
  }
  await load();
}

async function postman(name: string): Promise<void> {
  const res = await request('GET', `/api/v1/collections/${enc(name)}/postman`);
  const url = URL.createObjectURL(await res.blob());
  const a = h('a', { href: url, download: `${name}.postman_collection.json` });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function rename(name: string, load: () => Promise<void>): Promise<void> {
  const next = h('input', { value: name });
  const merge = h('input', { type: 'checkbox' });
  const out = h('div');
  await dialog(`Rename ${name}`, [field('New name', next), field('Merge into an existing collection', merge), out], (close) => [
    h('button', { type: 'button', onclick: close }, 'Cancel'),
    h('button', { type: 'button', class: 'primary', onclick: () => attempt(out, async () => (await api('PATCH', `/api/v1/collections/${enc(name)}`, { name: next.value.trim(), ...(merge.checked ? { merge: true } : {}) }), close())) }, 'Rename'),
  ]);
  await load();
}

/** /events as it happens: read with fetch (EventSource cannot send the key header), newest first, the last 200 kept. */
export async function eventsScreen(view: HTMLElement): Promise<void> {
  const body = h('tbody');
  const status = h('p', { class: 'muted', role: 'status' }, 'Connecting…');
  replace(view, h('h1', {}, 'Live runs'), status, h('div', { class: 'scroll' }, h('table', { 'aria-label': 'Live runs' }, h('thead', {}, h('tr', {}, ['Time', 'Query', 'Status', 'Rows', 'ms', 'Key'].map((t) => h('th', { scope: 'col' }, t)))), body)));
  const abort = new AbortController();
  const watch = setInterval(() => view.isConnected || (abort.abort(), clearInterval(watch)), 1000);
  void (async () => {
    try {
      const res = await request('GET', '/events', undefined, { workspace: false, headers: { accept: 'text/event-stream' } });
      status.textContent = 'Connected: new runs appear here.';
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      abort.signal.addEventListener('abort', () => void reader.cancel());
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
          if (!data) continue;
          const r = JSON.parse(data);
          body.prepend(h('tr', { class: r.status === 'error' ? 'bad' : '' }, h('td', {}, fmtTime(r.time)), h('td', {}, r.query ?? '(ad hoc)'), h('td', {}, r.status), h('td', {}, r.rows ?? '—'), h('td', {}, r.duration_ms ?? '—'), h('td', {}, r.key_name ?? '—')));
          while (body.children.length > 200) body.lastElementChild?.remove();
        }
      }
    } catch (error) {
      if (!abort.signal.aborted) status.textContent = `Disconnected: ${(error as Error).message}`;
    }
  })();
}

/** Owners: how many stored passwords are under which key, then a rekey under the first key of SLUICE_SECRET_KEY. */
function rekeyPanel(): HTMLElement {
  const out = h('div', { 'aria-live': 'polite' });
  const show = (r: any) => replace(out, h('dl', { class: 'facts', 'data-testid': 'rekey' }, Object.entries(r).map(([k, v]) => [h('dt', {}, k), h('dd', {}, typeof v === 'object' ? JSON.stringify(v) : String(v))])));
  return h('details', { class: 'card' }, h('summary', {}, 'Stored passwords: check and rekey'),
    h('div', { class: 'actions' },
      h('button', { type: 'button', onclick: () => attempt(out, async () => show(await api('POST', '/api/v1/settings/rekey', { check: true }))) }, 'Check'),
      h('button', { type: 'button', class: 'danger', onclick: async () => (await confirmStep('Rekey stored passwords', 'Every stored password is re-encrypted under the first key of SLUICE_SECRET_KEY, all or nothing.', 'Rekey')) && attempt(out, async () => show(await api('POST', '/api/v1/settings/rekey', {}))) }, 'Rekey'),
    ),
    out,
  );
}
