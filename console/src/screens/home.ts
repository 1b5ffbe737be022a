import { h, replace } from '../dom.ts';
import { can, state } from '../state.ts';
import { examplesPanel } from './examples.ts';
import { countCards, readCounts } from './overview-counts.ts';

/** What a new server still lacks, in the order a first call needs them, each a link to the screen that makes it. */
function nextSteps(counts: Map<string, number | string>): HTMLElement | null {
  const none = (label: string) => counts.get(label) === 0;
  const steps = [
    none('Own connections') && can('connections.write') && h('li', {}, h('a', { href: '#/connections' }, 'Add a connection'), ' to your database (the bundled examples one is there to try things on).'),
    none('Queries published') && none('Queries in draft') && can('queries.write') && h('li', {}, h('a', { href: '#/queries' }, 'Save a query'), ' on it and publish it.'),
    none('API keys') && can('keys.write') && h('li', {}, h('a', { href: '#/keys' }, 'Make a key'), ' for a caller, and copy how to call the query with it.'),
  ].filter(Boolean);
  return steps.length === 0 ? null : h('section', { 'aria-label': 'Next steps', class: 'card' }, h('h2', {}, 'Next steps'), h('ol', {}, steps));
}

/** The server at a glance (counts the role may read, next steps on an empty one) and who is signed in. */
export async function homeScreen(view: HTMLElement): Promise<void> {
  const me = state.me!;
  // Drawn at once; the counts follow as their calls answer, so the page is usable before them.
  const summary = h('div', {}, h('div', { class: 'progress', role: 'status' }, 'Counting…'));
  replace(
    view,
    h('h1', {}, 'Overview'),
    summary,
    h('h2', {}, `Signed in as ${me.name}`),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Role'), h('dd', {}, me.role ?? '—'),
      h('dt', {}, 'Signed in with'), h('dd', {}, me.via === 'break-glass' ? 'the server admin key' : me.via === 'token' ? 'an administrator token' : me.via),
      h('dt', {}, 'Workspace'), h('dd', {}, me.workspace, me.server_wide ? ' (role is server-wide)' : ''),
      h('dt', {}, 'Runs queries'), h('dd', {}, me.data_access === 'all' ? 'yes, drafts included' : 'no'),
    ),
    h('details', {}, h('summary', {}, `What the role may do (${me.capabilities.length} capabilities)`), h('ul', { class: 'caps' }, me.capabilities.map((c) => h('li', {}, h('code', {}, c))))),
    // The tour lives in the default workspace only (another answers 400).
    can('queries.read') && me.workspace === 'default' && examplesPanel(),
  );
  const counts = await readCounts();
  replace(summary, countCards(counts), nextSteps(counts));
}
