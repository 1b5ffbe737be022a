import { h } from './dom.ts';

export interface Rules {
  type?: string;
  required?: boolean;
  default?: unknown;
  enum?: unknown[];
  min?: number;
  max?: number;
  min_length?: number;
  max_length?: number;
  pattern?: string;
  description?: string;
  /** Rule fields the table has no column for (values_query, from_claim, ...): kept as they were. */
  [field: string]: unknown;
}

const TYPES = ['', 'str', 'int', 'float', 'bool'];
/** The type names the API shows, as the table's choices. */
const TYPE_CHOICE: Record<string, string> = { string: 'str', integer: 'int', number: 'float', boolean: 'bool' };
const EDITED = new Set(['type', 'required', 'default', 'min', 'max', 'enum', 'pattern', 'description']);

/** A table of parameters, one row of rules each; `value()` gives the `parameters` object the API takes. */
export function paramsEditor(initial: Record<string, Rules | string>): { el: HTMLElement; value: () => Record<string, Rules>; add: (name: string) => void } {
  const body = h('tbody');
  const rows: Array<() => [string, Rules] | null> = [];
  const add = (name: string, rules: Rules = {}) => {
    const n = h('input', { value: name, 'aria-label': 'Parameter name', size: 12 });
    const shownType = rules.type === undefined ? '' : (TYPE_CHOICE[rules.type] ?? rules.type);
    const type = h('select', { 'aria-label': 'Type' }, TYPES.map((t) => h('option', { value: t, selected: shownType === t }, t || 'any')));
    const kept = Object.fromEntries(Object.entries(rules).filter(([key]) => !EDITED.has(key)));
    const required = h('input', { type: 'checkbox', 'aria-label': 'Required', checked: rules.required ?? rules.default === undefined });
    const def = h('input', { value: rules.default === undefined ? '' : String(rules.default), 'aria-label': 'Default', size: 8 });
    const min = h('input', { value: rules.min ?? '', 'aria-label': 'Min', size: 5 });
    const max = h('input', { value: rules.max ?? '', 'aria-label': 'Max', size: 5 });
    const enm = h('input', { value: rules.enum?.join(',') ?? '', 'aria-label': 'Allowed values (comma-separated)', size: 12 });
    const pattern = h('input', { value: rules.pattern ?? '', 'aria-label': 'Pattern (RE2)', size: 10 });
    const desc = h('input', { value: rules.description ?? '', 'aria-label': 'Description', size: 14 });
    const tr = h('tr', {}, [n, type, required, def, min, max, enm, pattern, desc].map((c) => h('td', {}, c)), h('td', {}, h('button', { type: 'button', 'aria-label': `Remove parameter`, onclick: () => ((rows[index] = () => null), tr.remove()) }, '✕')));
    const index = rows.length;
    const typed = (text: string): unknown => (type.value === 'int' || type.value === 'float' ? Number(text) : type.value === 'bool' ? text === 'true' : text);
    rows.push(() => {
      if (!n.value.trim()) return null;
      const r: Rules = { ...kept };
      if (type.value) r.type = type.value;
      if (def.value !== '') r.default = typed(def.value);
      else if (!required.checked) r.required = false;
      if (min.value !== '') r.min = Number(min.value);
      if (max.value !== '') r.max = Number(max.value);
      if (enm.value.trim()) r.enum = enm.value.split(',').map((v) => typed(v.trim()));
      if (pattern.value) r.pattern = pattern.value;
      if (desc.value) r.description = desc.value;
      return [n.value.trim(), r];
    });
    body.appendChild(tr);
  };
  for (const [name, rules] of Object.entries(initial)) add(name, typeof rules === 'string' ? { type: rules } : rules);
  const el = h(
    'div',
    { class: 'params-editor' },
    h('div', { class: 'scroll' }, h('table', { 'aria-label': 'Parameters' }, h('thead', {}, h('tr', {}, ['Name', 'Type', 'Required', 'Default', 'Min', 'Max', 'Allowed values', 'Pattern', 'Description', ''].map((t) => h('th', { scope: 'col' }, t)))), body)),
    h('button', { type: 'button', onclick: () => add('') }, 'Add parameter'),
  );
  return { el, value: () => Object.fromEntries(rows.map((r) => r()).filter((r): r is [string, Rules] => r !== null)), add: (name) => add(name) };
}
