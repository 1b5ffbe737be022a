import { h } from './dom.ts';

/** Light or dark: the system's choice until the toggle is used (the choice, not a secret, is kept in localStorage). */
const KEY = 'sluice.console.theme';

export function initTheme(): void {
  const saved = localStorage.getItem(KEY);
  const dark = saved ? saved === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

export function themeToggle(): HTMLButtonElement {
  const label = () => (document.documentElement.dataset.theme === 'dark' ? 'Light theme' : 'Dark theme');
  const button = h('button', { type: 'button', class: 'theme' }, label());
  button.addEventListener('click', () => {
    const next = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
    document.documentElement.dataset.theme = next;
    localStorage.setItem(KEY, next);
    button.textContent = label();
  });
  return button;
}
