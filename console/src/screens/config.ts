import { api, get, qs, request } from '../api.ts';
import { attempt, confirmStep, field, h, pagedTable, replace } from '../dom.ts';
import { can } from '../state.ts';
import { diffVerdict, planText, type PlanShape } from '../../../shared/config/plan-text.ts';

interface Plan extends PlanShape {
  warnings: { path: string; message: string }[];
}

const SIGNS: Record<string, string> = { '+': 'create', '~': 'update', '-': 'delete', '=': 'manage' };

/** Each line of the plan marked by its sign (`+ ~ - =`), so the colours the CLI prints are shown too; the text stays the CLI's. */
const planLines = (text: string) =>
  text.split('\n').map((line, i, all) => h('span', { class: `plan-${SIGNS[line.trim()[0] ?? ''] ?? 'line'}` }, i < all.length - 1 ? `${line}\n` : line));

/**
 * Configuration as code: paste a file (YAML or JSON), see what it would
 * change, apply it all or nothing (owners); the objects it manages.
 */
export async function configScreen(view: HTMLElement): Promise<void> {
  const apply = can('config.apply');
  const text = h('textarea', { rows: 14, spellcheck: 'false', 'aria-label': 'Configuration file', class: 'code' });
  const kind = h('select', { 'aria-label': 'File format' }, h('option', { value: 'application/yaml' }, 'YAML'), h('option', { value: 'application/json' }, 'JSON'));
  const prune = h('input', { type: 'checkbox' });
  const out = h('div', { 'aria-live': 'polite' });
  const managed = h('div');
  const send = (path: string, flags: Record<string, string | undefined>) => api<Plan>('POST', `${path}${qs(flags)}`, text.value, { contentType: kind.value });
  // The plan as the CLI prints it; a diff leads with its verdict, which objects only to manage do not change.
  const show = (title: string, plan: Plan, step: 'diff' | 'dry run' | 'apply') =>
    replace(
      out,
      h('h2', {}, title),
      step === 'diff' && h('p', { 'data-testid': 'config-verdict' }, diffVerdict(plan)),
      ...plan.warnings.map((w) => h('p', { class: 'muted' }, `Warning: ${w.path ? `${w.path}: ` : ''}${w.message}`)),
      h('pre', { class: 'result plan', 'data-testid': 'config-result' }, planLines(planText(plan, { applied: step === 'apply', colour: false }))),
      h('details', {}, h('summary', {}, 'As JSON'), h('pre', { class: 'result' }, JSON.stringify(plan, null, 2))),
    );
  replace(
    view,
    h('h1', {}, 'Configuration'),
    h('p', { class: 'muted' }, 'Connections, queries, keys, roles, destinations and exports as one file, applied all or nothing.'),
    h('form', { onsubmit: (e: Event) => e.preventDefault() },
      h('div', { class: 'filters' }, field('Format', kind), field('Prune what the file does not name', prune),
        apply && h('button', { type: 'button', onclick: () => attempt(out, async () => {
          const res = await request('GET', '/api/v1/config/export', undefined, { headers: { accept: kind.value } });
          text.value = await res.text();
        }) }, 'Load current')),
      text,
      h('div', { class: 'actions' },
        h('button', { type: 'button', onclick: () => attempt(out, async () => show('Changes', await send('/api/v1/config/diff', { prune: prune.checked ? 'true' : undefined }), 'diff')) }, 'Diff'),
        apply && h('button', { type: 'button', onclick: () => attempt(out, async () => show('Dry run', await send('/api/v1/config/apply', { dry_run: 'true', prune: prune.checked ? 'true' : undefined }), 'dry run')) }, 'Dry run'),
        apply && h('button', { type: 'button', class: 'primary', onclick: async () => (await confirmStep('Apply the configuration', 'Every change in the file is made in one transaction.', 'Apply')) && attempt(out, async () => show('Applied', await send('/api/v1/config/apply', { prune: prune.checked ? 'true' : undefined }), 'apply')) }, 'Apply'),
      ),
    ),
    out,
    h('h2', {}, 'Managed objects'),
    managed,
  );
  const data = await attempt(managed, () => get<{ managed: Record<string, string[]>; locked: boolean }>('/api/v1/config/managed'));
  if (!data) return;
  const rows = Object.entries(data.managed).flatMap(([kind, names]) => names.map((name) => ({ kind, name })));
  managed.replaceChildren(
    h('p', { class: 'muted' }, data.locked ? 'Locked (SLUICE_CONFIG_LOCKED): managed objects change only through a file.' : 'Not locked: managed objects may also be changed through the API.'),
    pagedTable([{ label: 'Kind', cell: (m) => m.kind }, { label: 'Name', cell: (m) => m.name }], rows, { empty: 'Nothing is managed by a configuration file.', label: 'Managed objects' }),
  );
}
