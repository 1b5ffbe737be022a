/**
 * The signed-in secret (server admin key or administrator token) and the
 * workspace acted in, for this tab only: sessionStorage, never localStorage
 * or the URL, so closing the tab forgets them.
 */
const KEY = 'sluice.console.key';
const WORKSPACE = 'sluice.console.workspace';

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  workspace: (): string => sessionStorage.getItem(WORKSPACE) ?? 'default',
  signIn(key: string): void {
    sessionStorage.setItem(KEY, key);
  },
  setWorkspace(name: string): void {
    sessionStorage.setItem(WORKSPACE, name);
  },
  signOut(): void {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(WORKSPACE);
  },
};
