import { enc, request } from './api.ts';
import { errorBox, fmtTime, h, replace } from './dom.ts';
import { parseExact } from './exact-json.ts';
import type { ParamInput } from './param-input.ts';

/** A parameter of one saved version that lists its values from the data (values_query or values_field). */
export interface ListedParam {
  query: string;
  version: number;
  param: string;
}

interface ValueList {
  items: string[];
  refreshed_at: string;
}

/**
 * The values endpoint's list (`refresh`: read from the database now), each
 * item as the JSON's own text: a 64-bit integer keeps every digit, and the
 * option sends back exactly what was listed.
 */
async function readList(at: ListedParam, refresh: boolean): Promise<ValueList> {
  const res = await request('GET', `/api/v1/queries/${enc(at.query)}/versions/${at.version}/parameters/${enc(at.param)}/values${refresh ? '?refresh=true' : ''}`);
  const list = parseExact(await res.text()) as { items: unknown[]; refreshed_at: string };
  return { items: list.items.map(String), refreshed_at: list.refreshed_at };
}

const readAt = (iso: string) => h('time', { datetime: iso, title: fmtTime(iso) }, `${iso.slice(11, 19)} UTC`);

/**
 * A drop-down of the parameter's listed values, with a Refresh values button
 * that reads them from the database again; the choice is kept when the new
 * list still holds it. `allowed`: an enum the values must also be in.
 */
export function listedSelect(at: ListedParam, options: { label: string; hint?: string; optional: boolean; initial: string; allowed?: string[] }): ParamInput {
  const select = h('select', { id: `param-${at.param}` });
  const note = h('div', { class: 'values-note', 'aria-live': 'polite' });
  let reading = false;
  const load = async (refresh: boolean) => {
    // The button stays enabled while reading (a disabled button drops keyboard focus); a second click waits for the first.
    if (reading) return;
    reading = true;
    const kept = select.options.length > 0 ? select.value : options.initial;
    replace(note, 'Reading the values…');
    try {
      const list = await readList(at, refresh);
      const items = options.allowed ? list.items.filter((v) => options.allowed!.includes(v)) : list.items;
      replace(select, options.optional && h('option', { value: '' }, ''), items.map((v) => h('option', { value: v }, v)));
      select.value = kept;
      if (select.selectedIndex < 0) select.selectedIndex = 0;
      replace(note, `${items.length} value${items.length === 1 ? '' : 's'}, read `, readAt(list.refreshed_at));
    } catch (error) {
      replace(note, errorBox(error));
    } finally {
      reading = false;
    }
  };
  void load(false);
  const refresh = h('button', { type: 'button', 'aria-label': `Refresh values of ${at.param}`, onclick: () => load(true) }, 'Refresh values');
  const el = h('div', { class: 'field' }, h('label', { for: select.id }, options.label), h('div', { class: 'listed' }, select, refresh), note, options.hint && h('small', {}, options.hint));
  return { el, control: select };
}
