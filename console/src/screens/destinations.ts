import { api, enc, get, ifMatch, request } from '../api.ts';
import { attempt, dialog, field, h, pagedTable, replace, toast } from '../dom.ts';
import { can } from '../state.ts';

/** Destinations: where exports write; create, edit, test one. */
export async function destinationsScreen(view: HTMLElement): Promise<void> {
  const out = h('div');
  const result = h('div', { 'aria-live': 'polite' });
  const write = can('destinations.write');
  replace(view, h('div', { class: 'title-row' }, h('h1', {}, 'Destinations'), write && h('button', { type: 'button', class: 'primary', onclick: () => destinationForm(null, reload) }, 'New destination')), result, out);
  async function reload() {
    const data = await attempt(out, () => get<{ destinations: any[] }>('/api/v1/destinations'));
    if (!data) return;
    out.replaceChildren(
      pagedTable(
        [
          { label: 'Name', cell: (d) => h('strong', {}, d.name) },
          { label: 'URL', cell: (d) => h('code', {}, d.url) },
          { label: 'Region', cell: (d) => d.region ?? '—' },
          { label: 'Endpoint', cell: (d) => d.endpoint ?? '—' },
          {
            label: 'Actions',
            cell: (d) =>
              write &&
              h('div', { class: 'row-actions' },
                h('button', { type: 'button', onclick: () => attempt(result, async () => { const r = await api('POST', `/api/v1/destinations/${enc(d.name)}/test`); replace(result, h('p', { class: 'ok', role: 'status' }, `Test of ${d.name} passed${r.object ? `: wrote ${r.object}` : ''}.`)); }) }, 'Test'),
                h('button', { type: 'button', onclick: () => editDestination(d.name, reload) }, 'Edit'),
              ),
          },
        ],
        data.destinations,
        { empty: 'No destinations.', label: 'Destinations' },
      ),
    );
  }
  await reload();
}

async function editDestination(name: string, reload: () => Promise<void>): Promise<void> {
  const res = await request('GET', `/api/v1/destinations/${enc(name)}`);
  await destinationForm({ ...(await res.json()), etag: res.headers.get('etag') }, reload);
}

/**
 * New (null) or edit: S3, GCS, R2 (`s3://`, `gs://`, `r2://` URLs) or a local
 * folder inside SLUICE_EXPORT_DIRS; Test writes a probe before saving. The
 * secret is never shown: left empty on an edit, the stored one is kept; an
 * emptied region, endpoint or access key id is removed.
 */
async function destinationForm(existing: any | null, reload: () => Promise<void>): Promise<void> {
  const inputs = {
    url: h('input', { required: true, value: existing?.url ?? '', placeholder: 's3://bucket/prefix or /srv/exports' }),
    region: h('input', { value: existing?.region ?? '' }),
    endpoint: h('input', { value: existing?.endpoint ?? '' }),
    user: h('input', { autocomplete: 'off', value: existing?.user ?? '' }),
  };
  const name = h('input', { required: true, value: existing?.name ?? '', disabled: existing !== null });
  const password = h('input', { type: 'password', autocomplete: 'new-password', placeholder: existing ? 'unchanged' : '' });
  const out = h('div', { 'aria-live': 'polite' });
  const settings = (): Record<string, unknown> => {
    const b: Record<string, unknown> = {};
    for (const [k, input] of Object.entries(inputs)) {
      const value = input.value.trim();
      if (value !== '') b[k] = value;
      else if (existing && k !== 'url') b[k] = null;
    }
    if (password.value.trim() !== '') b.password = password.value.trim();
    return b;
  };
  const save = () => (existing ? api('PATCH', `/api/v1/destinations/${enc(existing.name)}`, settings(), ifMatch(existing.etag)) : api('POST', '/api/v1/destinations', { name: name.value.trim(), ...settings() }));
  await dialog(existing ? `Edit destination ${existing.name}` : 'New destination', h('form', { class: 'grid-form', onsubmit: (e: Event) => e.preventDefault() }, field('Name', name), field('URL', inputs.url), field('Region', inputs.region), field('Endpoint', inputs.endpoint), field('Access key id', inputs.user), field('Secret', password, existing ? 'Never shown; empty keeps it (type it to test a bucket). Or a ${SLUICE_REF_NAME} reference (server owners only)' : 'Or a ${SLUICE_REF_NAME} reference (server owners only)'), out), (close) => [
    h('button', { type: 'button', onclick: close }, 'Cancel'),
    // The test API reads either a saved destination or settings as typed, never a mix: a bucket's test needs its secret typed again.
    h('button', { type: 'button', onclick: () => attempt(out, async () => {
      await api('POST', '/api/v1/destinations/test', Object.fromEntries(Object.entries(settings()).filter(([, v]) => v !== null)));
      replace(out, h('p', { class: 'ok', role: 'status' }, 'Test passed: a probe object was written.'));
    }) }, 'Test'),
    h('button', { type: 'button', class: 'primary', onclick: () => attempt(out, async () => (await save(), toast('Saved.'), close())) }, 'Save'),
  ]);
  await reload();
}
