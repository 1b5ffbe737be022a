import { describe, expect, it } from 'vitest';
import { diffVerdict, drifts, planText, type PlanShape } from '../../shared/config/plan-text.ts';

const none = { create: [], update: [], delete: [], manage: [] };
const plan = (queries: Partial<PlanShape['changes'][string]>): PlanShape => ({ changes: { connections: none, queries: { ...none, ...queries } } });

describe('a configuration plan as text', () => {
  it('counts objects only to manage as no drift, and says so first', () => {
    const managed = plan({ manage: ['daily', 'weekly'] });
    expect(drifts(managed)).toBe(false);
    expect(diffVerdict(managed)).toBe('No changes: the target already matches the file; applying it only takes the 2 objects it names under management.');
    expect(planText(managed, { applied: false, colour: false })).toBe(
      'queries:\n  = daily (unchanged; becomes managed)\n  = weekly (unchanged; becomes managed)\n\nPlan: 0 to create, 0 to change, 0 to delete, 2 to manage.\n',
    );
  });

  it.each([
    ['a create', plan({ create: ['daily'] })],
    ['a change', plan({ update: [{ name: 'daily', fields: { sql: { from: 'select 1', to: 'select 2' } } }] })],
    ['a delete', plan({ delete: ['daily'] })],
  ])('counts %s as drift', (_, changed) => {
    expect(drifts(changed)).toBe(true);
    expect(diffVerdict(changed)).toMatch(/^Drift: /);
  });

  it('says an empty plan matches', () => {
    expect(diffVerdict(plan({}))).toBe('No changes: the target already matches the file.');
    expect(planText(plan({}), { applied: true, colour: false })).toBe('No changes: nothing was written.\n');
  });
});
