import { h, replace } from '../dom.ts';
import { can, state } from '../state.ts';
import { examplesPanel } from './examples.ts';

/** Who is signed in, and what their role lets them do here. */
export async function homeScreen(view: HTMLElement): Promise<void> {
  const me = state.me!;
  replace(
    view,
    h('h1', {}, `Signed in as ${me.name}`),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Role'), h('dd', {}, me.role ?? '—'),
      h('dt', {}, 'Signed in with'), h('dd', {}, me.via === 'break-glass' ? 'the server admin key' : me.via === 'token' ? 'an administrator token' : me.via),
      h('dt', {}, 'Workspace'), h('dd', {}, me.workspace, me.server_wide ? ' (role is server-wide)' : ''),
      h('dt', {}, 'Runs queries'), h('dd', {}, me.data_access === 'all' ? 'yes, drafts included' : 'no'),
    ),
    h('h2', {}, 'Capabilities'),
    h('ul', { class: 'caps' }, me.capabilities.map((c) => h('li', {}, h('code', {}, c)))),
    // The tour lives in the default workspace only (another answers 400).
    can('queries.read') && me.workspace === 'default' && examplesPanel(),
  );
}
