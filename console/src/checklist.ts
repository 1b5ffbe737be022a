import { h } from './dom.ts';

/**
 * A searchable list of checkboxes: many names chosen by clicking (or Space)
 * each, narrowed by typing, where a multi-select needed Ctrl-click and hid
 * what it held past its height. A filtered-out choice stays chosen.
 */
export function checklist(legend: string, names: string[], chosen: string[] = []) {
  const boxes = names.map((name) => ({ name, box: h('input', { type: 'checkbox', value: name, checked: chosen.includes(name) }) }));
  const items = boxes.map(({ name, box }) => h('li', {}, h('label', {}, box, ' ', name)));
  const count = h('small', { 'aria-live': 'polite' });
  const counted = () => (count.textContent = `${boxes.filter((b) => b.box.checked).length} of ${names.length} chosen`);
  const filter = h('input', { type: 'search', 'aria-label': `Filter ${legend.toLowerCase()}`, placeholder: 'Filter', autocomplete: 'off', oninput: () => {
    const text = filter.value.trim().toLowerCase();
    boxes.forEach(({ name }, i) => (items[i].hidden = text !== '' && !name.toLowerCase().includes(text)));
  } });
  const el = h('fieldset', { class: 'checklist', onchange: counted },
    h('legend', {}, legend),
    filter,
    names.length === 0 ? h('p', { class: 'empty' }, 'None to choose from.') : h('ul', {}, items),
    count);
  counted();
  return { el, value: () => boxes.filter((b) => b.box.checked).map((b) => b.name) };
}
