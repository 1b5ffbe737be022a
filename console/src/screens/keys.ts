import { api, enc, get, ifMatch, request } from '../api.ts';
import { attempt, confirmStep, dialog, field, fmtTime, h, pagedTable, replace, showSecret, toast } from '../dom.ts';
import { checklist } from '../checklist.ts';
import { can } from '../state.ts';
import { grantFields, limitFields, split } from './grant-limits.ts';
import { keyCalls } from './key-calls.ts';

const list = (v: unknown) => (Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : x.name)).join(', ') : '');

/** API keys: create (from grants or a role), the secret shown once, edit grants and limits, rotate with a grace, revoke, usage. */
export async function keysScreen(view: HTMLElement): Promise<void> {
  const out = h('div');
  const usage = h('div');
  const write = can('keys.write');
  replace(view, h('div', { class: 'title-row' }, h('h1', {}, 'API keys'), write && h('button', { type: 'button', class: 'primary', onclick: () => createKey(reload) }, 'New key')), out, can('usage.read') && [h('h2', {}, 'Usage'), usage]);
  async function reload() {
    const data = await attempt(out, () => get<{ api_keys: any[] }>('/api/v1/api-keys'));
    if (data) {
      out.replaceChildren(
        pagedTable(
          [
            { label: 'Name', cell: (k) => h('strong', {}, k.name) },
            { label: 'Active', cell: (k) => (k.active ? 'yes' : 'no') },
            { label: 'Queries', cell: (k) => list(k.queries) || '—' },
            { label: 'Collections', cell: (k) => list(k.collections) || '—' },
            { label: 'Connections', cell: (k) => list(k.connections) || '—' },
            { label: 'Limits', cell: (k) => limitsSummary(k) },
            { label: 'From role', cell: (k) => k.created_from_role ?? '—' },
            { label: 'Expires', cell: (k) => fmtTime(k.expires_at) },
            { label: 'Last used', cell: (k) => fmtTime(k.last_used_at) },
            {
              label: 'Actions',
              cell: (k) =>
                h('div', { class: 'row-actions' },
                  h('button', { type: 'button', onclick: () => dialog(`Call with ${k.name}`, keyCalls(k, null), (close) => h('button', { type: 'button', onclick: close }, 'Close')) }, 'Call it'),
                  write && h('button', { type: 'button', onclick: () => editGrants('api-keys', k.name, reload) }, 'Edit'),
                  write && h('button', { type: 'button', onclick: () => rotate(k) }, 'Rotate'),
                  write && h('button', { type: 'button', class: 'danger', onclick: () => revoke(k.name, reload) }, 'Revoke'),
                ),
            },
          ],
          data.api_keys,
          { empty: 'No API keys yet.', label: 'API keys' },
        ),
      );
    }
    if (!can('usage.read')) return;
    const u = await attempt(usage, () => get<{ callers: any[] }>('/api/v1/usage/quotas'));
    if (u)
      usage.replaceChildren(
        pagedTable(
          [
            { label: 'Caller', cell: (c) => c.name },
            { label: 'Calls today', cell: (c) => c.day?.calls ?? 0 },
            { label: 'Rows today', cell: (c) => c.day?.rows ?? 0 },
            { label: 'Calls this month', cell: (c) => c.month?.calls ?? 0 },
            { label: 'Quota', cell: (c) => c.quota ?? '—' },
            { label: 'Remaining', cell: (c) => c.remaining ?? '—' },
          ],
          u.callers ?? [],
          { empty: 'No calls yet.', label: 'Usage' },
        ),
      );
  }
  await reload();
}

async function createKey(reload: () => Promise<void>): Promise<void> {
  const roles = await get<{ roles: any[] }>('/api/v1/roles').catch(() => ({ roles: [] }));
  const queries = await get<{ queries: any[] }>('/api/v1/queries').catch(() => ({ queries: [] }));
  const name = h('input', { required: true, autocomplete: 'off' });
  const role = h('select', {}, h('option', { value: '' }, '(explicit grants)'), roles.roles.map((r) => h('option', { value: r.name }, r.name)));
  const queryList = checklist('Queries', queries.queries.map((q) => q.name));
  const collections = h('input', { placeholder: 'reports, finance' });
  const connections = h('input', { placeholder: 'warehouse or *' });
  const expires = h('input', { type: 'datetime-local' });
  const limits = limitFields(null);
  const out = h('div', { 'aria-live': 'polite' });
  let created: any = null;
  await dialog(
    'New API key',
    h('form', { onsubmit: (e: Event) => e.preventDefault() }, h('div', { class: 'grid-form' }, field('Name', name), field('From role', role, 'A role copies its grants and limits; leave those below empty.'), queryList.el, field('Collections', collections), field('Connections', connections), field('Expires', expires)), limits.el, out),
    (close) => [
      h('button', { type: 'button', onclick: close }, 'Cancel'),
      h('button', { type: 'button', class: 'primary', onclick: () => attempt(out, async () => {
        const body: Record<string, unknown> = { name: name.value.trim() };
        if (role.value) body.role = role.value;
        else {
          const qs = queryList.value();
          if (qs.length) body.queries = qs;
          if (collections.value) body.collections = split(collections.value);
          if (connections.value) body.connections = split(connections.value);
          Object.assign(body, limits.value());
        }
        if (expires.value) body.expires_at = new Date(expires.value).toISOString();
        created = await api('POST', '/api/v1/api-keys', body);
        close();
      }) }, 'Create'),
    ],
  );
  if (created) await showSecret('Key created', created.secret, keyCalls(created, created.secret));
  await reload();
}

async function rotate(key: any): Promise<void> {
  const name: string = key.name;
  const grace = h('input', { type: 'number', min: 0, value: 60 });
  const out = h('div', { 'aria-live': 'polite' });
  let secret: string | null = null;
  await dialog(`Rotate ${name}`, [h('p', {}, 'A new secret is issued; the old one keeps working for the grace period.'), field('Grace (minutes)', grace), out], (close) => [
    h('button', { type: 'button', onclick: close }, 'Cancel'),
    h('button', { type: 'button', class: 'primary', onclick: () => attempt(out, async () => {
      const etag = (await request('GET', `/api/v1/api-keys/${enc(name)}`)).headers.get('etag');
      secret = (await api('POST', `/api/v1/api-keys/${enc(name)}/rotate`, { grace_minutes: Number(grace.value) }, ifMatch(etag))).secret;
      close();
    }) }, 'Rotate'),
  ]);
  if (secret) await showSecret('New secret', secret, keyCalls(key, secret));
}

async function revoke(name: string, reload: () => Promise<void>): Promise<void> {
  if (!(await confirmStep(`Revoke ${name}`, 'The key stops working at once and is removed.', 'Revoke'))) return;
  await api('DELETE', `/api/v1/api-keys/${enc(name)}`);
  toast(`Revoked ${name}.`);
  await reload();
}

/** Roles: named sets of grants keys are created from. */
export async function rolesScreen(view: HTMLElement): Promise<void> {
  const out = h('div');
  const write = can('roles.write');
  replace(view, h('div', { class: 'title-row' }, h('h1', {}, 'Roles'), write && h('button', { type: 'button', class: 'primary', onclick: () => createRole(reload) }, 'New role')), out);
  async function reload() {
    const data = await attempt(out, () => get<{ roles: any[] }>('/api/v1/roles'));
    if (!data) return;
    out.replaceChildren(
      pagedTable(
        [
          { label: 'Name', cell: (r) => h('strong', {}, r.name) },
          { label: 'Description', cell: (r) => r.description ?? '' },
          { label: 'Queries', cell: (r) => list(r.queries) || '—' },
          { label: 'Collections', cell: (r) => list(r.collections) || '—' },
          { label: 'Connections', cell: (r) => list(r.connections) || '—' },
          { label: 'Actions', cell: (r) => write && h('div', { class: 'row-actions' }, h('button', { type: 'button', onclick: () => editGrants('roles', r.name, reload) }, 'Edit'), h('button', { type: 'button', class: 'danger', onclick: async () => (await confirmStep(`Delete role ${r.name}`, 'Keys made from it keep their grants.', 'Delete')) && attempt(out, async () => (await api('DELETE', `/api/v1/roles/${enc(r.name)}`), await reload())) }, 'Delete')) },
        ],
        data.roles,
        { empty: 'No roles yet.', label: 'Roles' },
      ),
    );
  }
  await reload();
}

async function createRole(reload: () => Promise<void>): Promise<void> {
  const name = h('input', { required: true });
  const description = h('input');
  const grants = grantFields(null);
  const limits = limitFields(null);
  const out = h('div', { 'aria-live': 'polite' });
  await dialog('New role', h('form', { onsubmit: (e: Event) => e.preventDefault() }, h('div', { class: 'grid-form' }, field('Name', name), field('Description', description), grants.el), limits.el, out), (close) => [
    h('button', { type: 'button', onclick: close }, 'Cancel'),
    h('button', { type: 'button', class: 'primary', onclick: () => attempt(out, async () => {
      const body: Record<string, unknown> = { name: name.value.trim(), ...grants.value(), ...limits.value() };
      if (description.value) body.description = description.value;
      await api('POST', '/api/v1/roles', body);
      close();
    }) }, 'Create'),
  ]);
  await reload();
}

/** A key's own limits, in a few words. */
function limitsSummary(k: any): string {
  const parts = [k.allowed_ips && (k.allowed_ips.length ? `from ${k.allowed_ips.join(', ')}` : 'no address'), k.rate_limit, k.quota, k.max_rows && `${k.max_rows} rows`, k.budget && 'budget', k.allow_writes && 'writes'];
  return parts.filter(Boolean).join(' · ') || '—';
}

/**
 * Changes a key's or a role's grants, limits and write settings (and a key's
 * active flag and expiry) by PATCH under the ETag read first: 412 if it
 * changed meanwhile.
 */
async function editGrants(kind: 'api-keys' | 'roles', name: string, reload: () => Promise<void>): Promise<void> {
  const res = await request('GET', `/api/v1/${kind}/${enc(name)}`);
  const etag = res.headers.get('etag');
  const item = await res.json();
  const grants = grantFields(item);
  const limits = limitFields(item);
  const active = h('input', { type: 'checkbox', checked: item.active ?? true });
  const expires = h('input', { type: 'datetime-local', value: item.expires_at ? item.expires_at.slice(0, 16) : '' });
  const out = h('div', { 'aria-live': 'polite' });
  await dialog(`Edit ${name}`, h('form', { onsubmit: (e: Event) => e.preventDefault() }, h('div', { class: 'grid-form' }, grants.el, kind === 'api-keys' && [field('Active', active), field('Expires', expires, 'Empty: never')]), limits.el, out), (close) => [
    h('button', { type: 'button', onclick: close }, 'Cancel'),
    h('button', { type: 'button', class: 'primary', onclick: () => attempt(out, async () => {
      const body: Record<string, unknown> = { ...grants.value(), ...limits.value() };
      if (kind === 'api-keys') {
        body.active = active.checked;
        body.expires_at = expires.value ? new Date(expires.value).toISOString() : null;
      }
      await api('PATCH', `/api/v1/${kind}/${enc(name)}`, body, ifMatch(etag));
      toast(`Saved ${name}.`);
      close();
    }) }, 'Save'),
  ]);
  await reload();
}
