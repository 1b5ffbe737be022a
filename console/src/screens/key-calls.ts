import { enc } from '../api.ts';
import { field, h, replace } from '../dom.ts';
import { callSnippets, callUrl } from '../snippets.ts';

/**
 * How a key's holder calls the server: a saved query it is granted (picked
 * from its own grants, or typed when it reaches queries through a
 * collection or `*`) and the MCP configuration. `secret` is given only right
 * after the key was issued or rotated, the one time the console shows it.
 */
export function keyCalls(key: { queries?: unknown }, secret: string | null): HTMLElement {
  const granted = (Array.isArray(key.queries) ? key.queries : []).map((q: any) => (typeof q === 'string' ? q : q.name)).filter((q: string) => q && q !== '*');
  const chooser = granted.length > 0
    ? h('select', {}, granted.map((q: string) => h('option', { value: q }, q)))
    : h('input', { placeholder: 'a query this key reaches', autocomplete: 'off', value: 'my_query' });
  const out = h('div');
  const draw = () => replace(out, callSnippets({ url: callUrl(`/q/${enc(chooser.value.trim() || 'my_query')}`), secret }, { mcp: true }));
  chooser.addEventListener(granted.length > 0 ? 'change' : 'input', draw);
  draw();
  return h('div', { class: 'key-calls' }, h('h3', {}, 'Call it'), field('Query', chooser), out);
}
