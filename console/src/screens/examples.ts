import { api, get } from '../api.ts';
import { attempt, confirmStep, h, replace, showSecret } from '../dom.ts';
import { can } from '../state.ts';

/**
 * The examples tour (docs/reference/examples.md): whether it is loaded, and,
 * with `examples.write`, install (the keys' secrets shown once) or remove.
 */
export function examplesPanel(): HTMLElement {
  const out = h('div', { 'aria-live': 'polite' });
  const panel = h('section', { class: 'card', 'aria-label': 'Examples' }, h('h2', {}, 'Examples tour'), out);
  const draw = async () => {
    const status = await attempt(out, () => get('/api/v1/examples'));
    if (!status) return;
    const write = can('examples.write');
    replace(
      out,
      h('p', { 'data-testid': 'examples-status' }, status.loaded ? `Loaded: ${status.queries?.length ?? 0} queries, ${status.keys?.length ?? 0} keys.` : status.partial ? 'Partly loaded (an install was interrupted).' : 'Not loaded.'),
      write && h('div', { class: 'actions' },
        !status.loaded && h('button', { type: 'button', onclick: () => attempt(out, async () => {
          const installed = await api('POST', '/api/v1/examples');
          for (const [key, secret] of Object.entries(installed.key_secrets ?? {})) await showSecret(`Secret of ${key}`, String(secret));
          await draw();
        }) }, 'Install examples'),
        (status.loaded || status.partial) && h('button', { type: 'button', class: 'danger', onclick: async () => (await confirmStep('Remove the examples', 'The example queries, collections, role and keys are removed.', 'Remove')) && attempt(out, async () => (await api('DELETE', '/api/v1/examples'), await draw())) }, 'Remove examples'),
      ),
    );
  };
  void draw();
  return panel;
}
