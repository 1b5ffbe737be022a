import { ApiError, api } from './api.ts';
import { errorBox, field, h, replace } from './dom.ts';
import { SCREENS, type Screen } from './screens/index.ts';
import { session } from './session.ts';
import { type Me, can, state } from './state.ts';
import { initTheme, themeToggle } from './theme.ts';

const root = document.getElementById('app')!;

/** Before sign-in the console calls nothing: the form is drawn from memory. */
function signInScreen(message?: HTMLElement): void {
  const input = h('input', { type: 'password', autocomplete: 'off', required: true, spellcheck: 'false' });
  const status = h('div', { 'aria-live': 'polite' }, message);
  const form = h(
    'form',
    { class: 'signin card', 'aria-label': 'Sign in' },
    h('h1', {}, 'Sluice console'),
    h('p', {}, 'Sign in with the server admin key or an administrator token. It is kept in this tab only and forgotten when you sign out or close it.'),
    field('Admin key or administrator token', input),
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    status,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) return;
    replace(status, h('div', { class: 'progress', role: 'status' }, 'Signing in…'));
    try {
      const me = await api<Me>('GET', '/api/v1/me', undefined, { key, workspace: false });
      session.signIn(key);
      session.setWorkspace(me.workspace);
      state.set(me);
      location.hash = '#/';
      shell();
    } catch (error) {
      replace(status, error instanceof ApiError && error.status === 401 ? refused(error) : errorBox(error));
    }
  });
  replace(root, h('main', { class: 'signin-page' }, form, h('div', { class: 'signin-theme' }, themeToggle())));
  input.focus();
}

function refused(error: ApiError): HTMLElement {
  const box = errorBox(error);
  box.prepend(h('p', {}, 'That key or token was refused. Check it and try again.'));
  return box;
}

function signOut(): void {
  session.signOut();
  state.set(null);
  history.replaceState(null, '', location.pathname);
  signInScreen(h('p', { class: 'notice', role: 'status' }, 'Signed out.'));
}

const visible = (screen: Screen) => screen.capability === undefined || can(screen.capability);

/** The signed-in page: header, navigation (only what the role may read), and the screen the hash names. */
function shell(): void {
  const me = state.me!;
  const nav = h('nav', { class: 'side', 'aria-label': 'Screens' });
  const content = h('main', { id: 'content', tabindex: '-1' });
  const switcher = h(
    'select',
    { 'aria-label': 'Workspace', onchange: (e: Event) => switchWorkspace((e.target as HTMLSelectElement).value) },
    me.workspaces.map((w) => h('option', { value: w.name, selected: w.name === me.workspace }, w.name)),
  );
  const menu = h('button', { type: 'button', class: 'menu', 'aria-label': 'Menu', 'aria-expanded': 'false', onclick: () => {
    const open = document.body.classList.toggle('nav-open');
    menu.setAttribute('aria-expanded', String(open));
  } }, '☰');
  replace(
    root,
    h('a', { class: 'skip', href: '#content', onclick: (e: Event) => (e.preventDefault(), content.focus()) }, 'Skip to content'),
    h(
      'header',
      { class: 'top' },
      menu,
      h('span', { class: 'brand' }, 'Sluice'),
      me.workspaces.length > 1 ? field('Workspace', switcher) : h('span', { class: 'ws' }, `workspace ${me.workspace}`),
      h('span', { class: 'who', 'data-testid': 'who' }, `${me.name} · ${me.role ?? 'no role'}${me.via === 'break-glass' ? ' (admin key)' : ''}`),
      themeToggle(),
      h('button', { type: 'button', onclick: signOut }, 'Sign out'),
    ),
    h('div', { class: 'body' }, nav, content),
    h('div', { id: 'toast', role: 'status', 'aria-live': 'polite' }),
  );
  replace(nav, h('ul', {}, SCREENS.filter((s) => s.nav && visible(s)).map((s) => h('li', {}, h('a', { href: `#/${s.path}`, 'data-path': s.path }, s.title)))));
  route();
}

async function switchWorkspace(name: string): Promise<void> {
  session.setWorkspace(name);
  try {
    state.set(await api<Me>('GET', '/api/v1/me'));
    // What the screen showed belongs to the other workspace: start from the overview.
    history.replaceState(null, '', `${location.pathname}#/`);
    shell();
  } catch (error) {
    replace(document.getElementById('content')!, errorBox(error));
  }
}

/** `#/<screen>/<arg>...` */
function route(): void {
  const content = document.getElementById('content');
  if (!content || !state.me) return;
  const [path = '', ...args] = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const screen = SCREENS.find((s) => s.path === (path || 'home')) ?? SCREENS.find((s) => s.path === 'home')!;
  document.body.classList.remove('nav-open');
  // A dialog belongs to the screen it was opened on: going elsewhere (a link, Back) cancels it.
  for (const open of document.querySelectorAll<HTMLDialogElement>('dialog[open]')) open.close();
  const toastRegion = document.getElementById('toast');
  if (toastRegion) toastRegion.textContent = '';
  for (const link of document.querySelectorAll('nav.side a')) {
    if ((link as HTMLElement).dataset.path === screen.path) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  document.title = `${screen.title} · Sluice console`;
  if (!visible(screen)) {
    replace(content, h('p', { class: 'notice' }, `Your role cannot open ${screen.title}.`));
    return;
  }
  content.replaceChildren();
  const view = h('section', { class: 'screen', 'data-screen': screen.path });
  content.appendChild(view);
  screen.render(view, args).catch((error) => replace(view, errorBox(error)));
}

addEventListener('hashchange', route);

async function start(): Promise<void> {
  initTheme();
  if (!session.key()) return signInScreen();
  try {
    state.set(await api<Me>('GET', '/api/v1/me'));
    shell();
  } catch (error) {
    session.signOut();
    signInScreen(errorBox(error));
  }
}

void start();
