import { api, enc, get } from '../api.ts';
import { attempt, confirmStep, dialog, field, fmtTime, h, pagedTable, replace, showSecret } from '../dom.ts';
import { can, state } from '../state.ts';

const ROLES = ['owner', 'admin', 'developer', 'auditor'];

/** Administrators (owners manage them) and each one's sign-in tokens. */
export async function adminsScreen(view: HTMLElement, args: string[]): Promise<void> {
  if (args[0]) return tokensScreen(view, args[0]);
  const out = h('div');
  const write = can('administrators.write');
  replace(view, h('div', { class: 'title-row' }, h('h1', {}, 'Administrators'), write && h('button', { type: 'button', class: 'primary', onclick: () => create(reload) }, 'New administrator')), out);
  async function reload() {
    const data = await attempt(out, () => get<{ administrators: any[] }>('/api/v1/administrators'));
    if (!data) return;
    out.replaceChildren(
      pagedTable(
        [
          // Tokens: everyone's own, an owner anyone's.
          { label: 'Name', cell: (a) => (write || (state.me?.via === 'token' && state.me.name === a.name) ? h('a', { href: `#/administrators/${enc(a.name)}` }, a.name) : a.name) },
          { label: 'Role', cell: (a) => a.role ?? '—' },
          { label: 'Email', cell: (a) => a.email ?? '—' },
          { label: 'Active', cell: (a) => (a.active ? 'yes' : 'no') },
          { label: 'Actions', cell: (a) => write && h('button', { type: 'button', class: 'danger', onclick: async () => (await confirmStep(`Remove ${a.name}`, 'Their tokens stop working.', 'Remove')) && attempt(out, async () => (await api('DELETE', `/api/v1/administrators/${enc(a.name)}`), await reload())) }, 'Remove') },
        ],
        data.administrators,
        { label: 'Administrators' },
      ),
    );
  }
  await reload();
}

async function create(reload: () => Promise<void>): Promise<void> {
  const name = h('input', { required: true });
  const role = h('select', {}, ROLES.map((r) => h('option', { value: r }, r)));
  const email = h('input', { type: 'email' });
  const out = h('div');
  await dialog('New administrator', h('form', { class: 'grid-form', onsubmit: (e: Event) => e.preventDefault() }, field('Name', name), field('Role', role), field('Email', email), out), (close) => [
    h('button', { type: 'button', onclick: close }, 'Cancel'),
    h('button', { type: 'button', class: 'primary', onclick: () => attempt(out, async () => (await api('POST', '/api/v1/administrators', { name: name.value.trim(), role: role.value, ...(email.value ? { email: email.value } : {}) }), close())) }, 'Create'),
  ]);
  await reload();
}

/** One administrator's tokens: everyone manages their own, an owner anyone's. */
async function tokensScreen(view: HTMLElement, name: string): Promise<void> {
  const out = h('div');
  const mine = state.me?.via === 'token' && state.me.name === name;
  const write = mine || can('administrators.write');
  replace(view, h('p', {}, h('a', { href: '#/administrators' }, '‹ Administrators')), h('div', { class: 'title-row' }, h('h1', {}, `Tokens of ${name}`), write && h('button', { type: 'button', class: 'primary', onclick: () => issue() }, 'Issue token')), out);
  async function issue() {
    const label = h('input');
    const holder = h('div');
    let secret: string | null = null;
    await dialog('Issue token', [field('Label', label), holder], (close) => [
      h('button', { type: 'button', onclick: close }, 'Cancel'),
      h('button', { type: 'button', class: 'primary', onclick: () => attempt(holder, async () => {
        const t = await api('POST', `/api/v1/administrators/${enc(name)}/tokens`, label.value ? { label: label.value } : {});
        secret = t.secret ?? t.token;
        close();
      }) }, 'Issue'),
    ]);
    if (secret) await showSecret('Token issued', secret);
    await reload();
  }
  async function reload() {
    const data = await attempt(out, () => get<{ tokens: any[] }>(`/api/v1/administrators/${enc(name)}/tokens`));
    if (!data) return;
    out.replaceChildren(
      pagedTable(
        [
          { label: 'Id', cell: (t) => h('code', {}, t.id) },
          { label: 'Label', cell: (t) => t.label ?? '—' },
          { label: 'Created', cell: (t) => fmtTime(t.created_at) },
          { label: 'Expires', cell: (t) => fmtTime(t.expires_at) },
          { label: 'Last used', cell: (t) => fmtTime(t.last_used_at) },
          { label: 'Actions', cell: (t) => write && h('button', { type: 'button', class: 'danger', onclick: () => attempt(out, async () => (await api('DELETE', `/api/v1/administrators/${enc(name)}/tokens/${enc(t.id)}`), await reload())) }, 'Revoke') },
        ],
        data.tokens,
        { empty: 'No tokens.', label: 'Tokens' },
      ),
    );
  }
  await reload();
}

/** Workspaces the caller may see; owners create and remove them. */
export async function workspacesScreen(view: HTMLElement): Promise<void> {
  const out = h('div');
  const write = can('workspaces.write');
  replace(view, h('div', { class: 'title-row' }, h('h1', {}, 'Workspaces'), write && h('button', { type: 'button', class: 'primary', onclick: () => create() }, 'New workspace')), out);
  async function create() {
    const name = h('input', { required: true });
    const description = h('input');
    const holder = h('div');
    await dialog('New workspace', [field('Name', name), field('Description', description), holder], (close) => [
      h('button', { type: 'button', onclick: close }, 'Cancel'),
      h('button', { type: 'button', class: 'primary', onclick: () => attempt(holder, async () => (await api('POST', '/api/v1/workspaces', { name: name.value.trim(), ...(description.value ? { description: description.value } : {}) }, { workspace: false }), close())) }, 'Create'),
    ]);
    await reload();
  }
  async function reload() {
    const data = await attempt(out, () => api<{ workspaces: any[] }>('GET', '/api/v1/workspaces', undefined, { workspace: false }));
    if (!data) return;
    out.replaceChildren(
      pagedTable(
        [
          { label: 'Name', cell: (w) => h('strong', {}, w.name) },
          { label: 'Description', cell: (w) => w.description ?? '' },
          { label: 'Created', cell: (w) => fmtTime(w.created_at) },
          { label: 'Members', cell: (w) => w.name !== 'default' && h('button', { type: 'button', onclick: () => members(w.name) }, 'Members') },
          { label: 'Actions', cell: (w) => write && w.name !== 'default' && h('button', { type: 'button', class: 'danger', onclick: async () => (await confirmStep(`Delete workspace ${w.name}`, 'Only an empty workspace can be deleted.', 'Delete')) && attempt(out, async () => (await api('DELETE', `/api/v1/workspaces/${enc(w.name)}`, undefined, { workspace: false }), await reload())) }, 'Delete') },
        ],
        data.workspaces,
        { label: 'Workspaces' },
      ),
    );
  }
  await reload();
}

/** A workspace's members; a server owner or the workspace's owner adds, changes and removes them. */
async function members(workspace: string): Promise<void> {
  const out = h('div');
  const write = can('administrators.write') || state.me?.workspaces.some((w) => w.name === workspace && w.role === 'owner');
  const admin = h('input', { autocomplete: 'off' });
  const role = h('select', {}, ROLES.map((r) => h('option', { value: r }, r)));
  const path = `/api/v1/workspaces/${enc(workspace)}/members`;
  const load = async () => {
    const data = await attempt(out, () => api<{ members: any[] }>('GET', path, undefined, { workspace: false }));
    if (!data) return;
    out.replaceChildren(
      pagedTable(
        [
          { label: 'Administrator', cell: (m) => m.admin },
          { label: 'Role', cell: (m) => m.role },
          { label: 'Added', cell: (m) => `${fmtTime(m.created_at)} by ${m.added_by ?? '—'}` },
          { label: 'Actions', cell: (m) => write && h('button', { type: 'button', class: 'danger', onclick: () => attempt(out, async () => (await api('DELETE', `${path}/${enc(m.admin)}`, undefined, { workspace: false }), await load())) }, 'Remove') },
        ],
        data.members,
        { empty: 'No members.', label: 'Members' },
      ),
    );
  };
  const done = dialog(`Members of ${workspace}`, [
    out,
    write && h('form', { class: 'filters', onsubmit: (e: Event) => {
      e.preventDefault();
      void attempt(out, async () => (await api('PUT', `${path}/${enc(admin.value.trim())}`, { role: role.value }, { workspace: false }), await load()));
    } }, field('Administrator', admin), field('Role', role), h('button', { type: 'submit' }, 'Add or change')),
  ], (close) => h('button', { type: 'button', onclick: close }, 'Close'));
  await load();
  await done;
}
