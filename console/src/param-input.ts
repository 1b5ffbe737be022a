import { field, h } from './dom.ts';
import { listedSelect } from './listed-values.ts';

/** A parameter's rule as a saved version shows it: a type name, or its rules. */
export type ShownRule =
  | string
  | null
  | { type?: string; required?: boolean; default?: unknown; enum?: unknown[]; description?: string; values_query?: string; values_field?: string };

export interface ParamInput {
  el: HTMLElement;
  /** What the run sends for the parameter, as text (the server converts it to the parameter's type). */
  control: HTMLInputElement | HTMLSelectElement;
}

/** Which version's parameter the input is for: a listing parameter reads its values there. */
export interface ParamAt {
  query: string;
  version: number;
}

/**
 * The run form's input for one parameter: a drop-down of its allowed values
 * when it has them (an `enum`, a boolean's true and false, or values listed
 * from the data with a Refresh button), else a text box typed by the
 * parameter. An optional parameter's drop-down starts with an empty choice,
 * which sends nothing; a required one is marked.
 */
export function paramInput(at: ParamAt, name: string, shown: ShownRule): ParamInput {
  const rule = typeof shown === 'object' && shown !== null ? shown : {};
  const type = typeof shown === 'string' ? shown : rule.type;
  const initial = rule.default === undefined || rule.default === null ? '' : String(rule.default);
  const optional = rule.required === false || rule.default !== undefined;
  if (rule.values_query !== undefined || rule.values_field !== undefined) {
    // Both rules hold at run time: only the listed values the enum allows can pass.
    const allowed = rule.enum?.map(String);
    return required(listedSelect({ ...at, param: name }, { label: name, hint: rule.description, optional, initial, allowed }), optional);
  }
  const values = rule.enum ?? (type === 'boolean' || type === 'bool' ? [true, false] : undefined);
  const control = values
    ? h('select', {}, optional && h('option', { value: '' }, ''), values.map((v) => h('option', { value: String(v), selected: String(v) === initial }, String(v))))
    : h('input', { value: initial, placeholder: type ?? 'any', ...typedText(type) });
  return required({ el: field(name, control, rule.description), control }, optional);
}

/**
 * Number parameters get a text box that brings up the number keyboard and
 * says what it takes, not `type=number`, which rounds an integer past 2^53
 * and drops a decimal's trailing zeros (the API keeps both).
 */
function typedText(type: string | undefined): Record<string, string> {
  if (type === 'integer' || type === 'int') return { inputmode: 'numeric', pattern: '[+\\-]?[0-9]+', title: 'A whole number' };
  if (type === 'number' || type === 'float') return { inputmode: 'decimal', pattern: '[+\\-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+\\-]?[0-9]+)?', title: 'A number' };
  return {};
}

/** A required parameter's control says so to the browser and screen readers, and a mark beside its label says so to the eye (outside the label: the name stays the parameter's). */
function required(input: ParamInput, optional: boolean): ParamInput {
  if (optional) return input;
  input.control.required = true;
  input.el.querySelector('label')?.after(h('span', { class: 'required-mark', 'aria-hidden': 'true' }, 'required'));
  return input;
}
