import { h } from './dom.ts';

const KEYWORDS = new Set(
  'select from where and or not in is null as join left right inner outer full cross on group by order having limit offset union all distinct case when then else end with insert update delete into values set create table drop alter asc desc between like ilike exists fetch first rows only true false cast show describe explain'.split(' '),
);

/** Splits SQL into classed spans: comments, strings, :markers, numbers, keywords. */
export function highlight(sql: string): DocumentFragment {
  const out = document.createDocumentFragment();
  const pattern = /(--[^\n]*|\/\*[\s\S]*?\*\/)|('(?:[^']|'')*'?)|((?<!:):[A-Za-z_]\w*)|(\b\d+(?:\.\d+)?\b)|([A-Za-z_]\w*)|([\s\S])/g;
  for (const m of sql.matchAll(pattern)) {
    const [text, comment, string, marker, number, word] = m;
    const cls = comment ? 'c' : string ? 's' : marker ? 'p' : number ? 'n' : word && KEYWORDS.has(word.toLowerCase()) ? 'k' : null;
    out.appendChild(cls ? h('span', { class: `sql-${cls}` }, text) : document.createTextNode(text));
  }
  return out;
}

/**
 * A textarea over a highlighted copy of its text: typing stays a plain
 * textarea (keyboard, selection, undo), the colours come from the layer below.
 */
export function sqlEditor(initial: string, label = 'SQL'): { el: HTMLElement; textarea: HTMLTextAreaElement } {
  const layer = h('pre', { class: 'sql-layer', 'aria-hidden': 'true' });
  const textarea = h('textarea', { class: 'sql-input', spellcheck: 'false', 'aria-label': label, rows: 8, value: initial });
  const sync = () => {
    layer.replaceChildren(highlight(`${textarea.value}\n`));
    layer.scrollTop = textarea.scrollTop;
    layer.scrollLeft = textarea.scrollLeft;
  };
  textarea.addEventListener('input', sync);
  textarea.addEventListener('scroll', sync);
  sync();
  return { el: h('div', { class: 'sql-editor' }, layer, textarea), textarea };
}
