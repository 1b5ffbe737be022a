import { h } from './dom.ts';

/**
 * Ready-to-paste calls of this server: curl, JavaScript fetch, Python
 * requests and an MCP client's configuration. The key is an environment
 * variable (SLUICE_KEY) unless a secret was just issued, so a copied snippet
 * never carries a secret the page did not show.
 */

/** Single-quoted for a POSIX shell: a quote inside becomes '\'' . */
export const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** A URL on the origin the console is served from, its query string encoded. */
export function callUrl(path: string, params: Record<string, string | number | null | undefined> = {}): string {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
  return url.href;
}

export interface Call {
  url: string;
  /** The secret itself, right after it was issued; else the placeholders. */
  secret?: string | null;
  /** Extra request headers, e.g. `Prefer: respond-async`. */
  headers?: Record<string, string>;
}

export function curlSnippet({ url, secret, headers = {} }: Call): string {
  const key = secret ? shellQuote(`X-API-Key: ${secret}`) : '"X-API-Key: $SLUICE_KEY"';
  const extra = Object.entries(headers).map(([k, v]) => ` -H ${shellQuote(`${k}: ${v}`)}`).join('');
  return `curl -sS --fail-with-body ${shellQuote(url)} -H ${key}${extra}`;
}

export function fetchSnippet({ url, secret, headers = {} }: Call): string {
  const all = { 'X-API-Key': secret ? JSON.stringify(secret) : 'process.env.SLUICE_KEY', ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, JSON.stringify(v)])) };
  const lines = Object.entries(all).map(([k, v]) => `    ${JSON.stringify(k)}: ${v},`);
  return [`const res = await fetch(${JSON.stringify(url)}, {`, '  headers: {', ...lines, '  },', '});', 'if (!res.ok) throw new Error(await res.text());', 'console.log(await res.text());'].join('\n');
}

export function pythonSnippet({ url, secret, headers = {} }: Call): string {
  const all = { 'X-API-Key': secret ? JSON.stringify(secret) : 'os.environ["SLUICE_KEY"]', ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, JSON.stringify(v)])) };
  const lines = Object.entries(all).map(([k, v]) => `        ${JSON.stringify(k)}: ${v},`);
  return [...(secret ? [] : ['import os']), 'import requests', '', 'res = requests.get(', `    ${JSON.stringify(url)},`, '    headers={', ...lines, '    },', ')', 'res.raise_for_status()', 'print(res.text)'].join('\n');
}

/** The `mcpServers` entry docs/guides/mcp.md documents (Claude Desktop, Cursor and other clients). */
export function mcpSnippet(secret?: string | null): string {
  return JSON.stringify({ mcpServers: { sluice: { type: 'http', url: callUrl('/mcp'), headers: { 'X-API-Key': secret ?? '<your key>' } } } }, null, 2);
}

/** One snippet with its Copy button; the status says whether the copy worked. */
export function snippetBlock(label: string, text: string): HTMLElement {
  const status = h('span', { role: 'status', class: 'muted' });
  const copy = () => navigator.clipboard.writeText(text).then(() => (status.textContent = 'Copied.'), () => (status.textContent = 'Copy failed: select the text instead.'));
  return h('div', { class: 'snippet', 'data-snippet': label },
    h('div', { class: 'snippet-head' }, h('strong', {}, label), h('button', { type: 'button', 'aria-label': `Copy ${label}`, onclick: copy }, 'Copy'), status),
    h('pre', { class: 'code', tabindex: '0', 'aria-label': label }, text));
}

/** The three HTTP snippets of one call, and the MCP configuration when asked for. */
export function callSnippets(call: Call, options: { mcp?: boolean } = {}): HTMLElement {
  return h('div', { class: 'snippets', 'data-testid': 'snippets' },
    call.secret ? null : h('p', { class: 'muted' }, 'Set SLUICE_KEY to an API key first (export SLUICE_KEY=…); the key itself is never shown here.'),
    snippetBlock('curl', curlSnippet(call)),
    snippetBlock('JavaScript fetch', fetchSnippet(call)),
    snippetBlock('Python requests', pythonSnippet(call)),
    options.mcp && snippetBlock('MCP client configuration', mcpSnippet(call.secret)),
  );
}
