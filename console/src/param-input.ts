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
 * when it has them (an `enum`, or values listed from the data with a Refresh
 * button), else a text box. An optional parameter's drop-down starts with an
 * empty choice, which sends nothing.
 */
export function paramInput(at: ParamAt, name: string, shown: ShownRule): ParamInput {
  const rule = typeof shown === 'object' && shown !== null ? shown : {};
  const initial = rule.default === undefined || rule.default === null ? '' : String(rule.default);
  const optional = rule.required === false || rule.default !== undefined;
  if (rule.values_query !== undefined || rule.values_field !== undefined) {
    // Both rules hold at run time: only the listed values the enum allows can pass.
    const allowed = rule.enum?.map(String);
    return listedSelect({ ...at, param: name }, { label: name, hint: rule.description, optional, initial, allowed });
  }
  if (rule.enum) {
    const control = h('select', {}, optional && h('option', { value: '' }, ''), rule.enum.map((v) => h('option', { value: String(v), selected: String(v) === initial }, String(v))));
    return { el: field(name, control, rule.description), control };
  }
  const control = h('input', { value: initial, placeholder: typeof shown === 'string' ? shown : (rule.type ?? 'any') });
  return { el: field(name, control, rule.description), control };
}
