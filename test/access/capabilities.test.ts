import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROLES, type AdminRole, type Capability, capabilitiesOf, roleHas } from '../../origin/access/capabilities.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { ADMIN_KEY, adminWithToken, asAdmin, bearer, expectStatus } from './fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';

/**
 * The capability table, enforced: each role's administrator tries one
 * operation per capability and gets 403 `forbidden` (naming it) exactly when
 * the role lacks it. Workspace memberships give their role only in their
 * workspace, and never the server-wide capabilities.
 */

let origin: Origin;
const tokens = {} as Record<AdminRole, string>;

beforeAll(async () => {
  origin = await startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } });
  for (const role of ADMIN_ROLES) tokens[role] = await adminWithToken(origin, unique(role), role);
});

afterAll(async () => {
  await origin?.stop();
});

interface Probe {
  capability: Capability;
  method: string;
  path: string;
  body?: () => unknown;
}

/** One operation per capability the existing routes ask for; bodies are valid enough to get past the guard. */
const PROBES: Probe[] = [
  { capability: 'connections.read', method: 'GET', path: '/api/v1/connections' },
  { capability: 'connections.write', method: 'POST', path: '/api/v1/connections', body: () => ({ name: unique('conn'), db: 'duckdb' }) },
  { capability: 'connections.write', method: 'POST', path: '/api/v1/connections/test', body: () => ({ db: 'duckdb' }) },
  { capability: 'destinations.read', method: 'GET', path: '/api/v1/destinations' },
  {
    capability: 'destinations.write',
    method: 'POST',
    path: '/api/v1/destinations',
    body: () => ({ name: unique('dest'), url: 's3://sluice-probe-bucket/x', user: 'AKIDEXAMPLE', password: '${SLUICE_REF_T_UNSET_SECRET}' }),
  },
  { capability: 'queries.read', method: 'GET', path: '/api/v1/queries' },
  { capability: 'queries.read', method: 'POST', path: '/api/v1/queries/validate', body: () => ({ sql: 'select 1' }) },
  { capability: 'queries.write', method: 'POST', path: '/api/v1/queries', body: () => ({ name: unique('q'), sql: 'select 1' }) },
  { capability: 'collections.read', method: 'GET', path: '/api/v1/collections' },
  { capability: 'collections.write', method: 'PATCH', path: '/api/v1/collections/nothing-here', body: () => ({ name: 'still-nothing' }) },
  { capability: 'history.read', method: 'GET', path: '/api/v1/history' },
  { capability: 'history.forget', method: 'DELETE', path: '/api/v1/history?caller=nobody-at-all&dry_run=true' },
  { capability: 'cache.read', method: 'GET', path: '/api/v1/cache/entries' },
  { capability: 'cache.write', method: 'DELETE', path: '/api/v1/cache/entries' },
  { capability: 'keys.read', method: 'GET', path: '/api/v1/api-keys' },
  { capability: 'keys.write', method: 'POST', path: '/api/v1/api-keys', body: () => ({ name: unique('key'), connections: [] }) },
  { capability: 'roles.read', method: 'GET', path: '/api/v1/roles' },
  { capability: 'roles.write', method: 'POST', path: '/api/v1/roles', body: () => ({ name: unique('role'), connections: [] }) },
  { capability: 'audit.read', method: 'GET', path: '/api/v1/audit' },
  { capability: 'settings.read', method: 'GET', path: '/api/v1/settings' },
  { capability: 'alerts.read', method: 'GET', path: '/api/v1/alerts' },
  { capability: 'administrators.read', method: 'GET', path: '/api/v1/administrators' },
  { capability: 'administrators.write', method: 'POST', path: '/api/v1/administrators', body: () => ({ name: unique('adm'), role: null }) },
  { capability: 'workspaces.write', method: 'POST', path: '/api/v1/workspaces', body: () => ({ name: unique('ws') }) },
  { capability: 'exports.read', method: 'GET', path: '/api/v1/exports' },
  { capability: 'exports.write', method: 'POST', path: '/api/v1/exports', body: () => ({ name: unique('exp'), query: 'none', format: 'csv', destination: 'none' }) },
  { capability: 'exports.run', method: 'POST', path: '/api/v1/exports/nothing-here/runs' },
];

describe('the capability table', () => {
  for (const role of ADMIN_ROLES) {
    it(`is enforced for ${role}`, async () => {
      const me = await origin.call('GET', '/api/v1/me', undefined, bearer(tokens[role]));
      expectStatus(me, 200);
      expect(me.body.capabilities).toEqual(capabilitiesOf(role));
      for (const probe of PROBES) {
        const res = await origin.call(probe.method, probe.path, probe.body?.(), bearer(tokens[role]));
        const label = `${role} ${probe.method} ${probe.path}: ${res.status} ${JSON.stringify(res.body)}`;
        if (roleHas(role, probe.capability)) {
          expect(res.status, label).not.toBe(403);
          expect(res.status, label).toBeLessThan(500);
        } else {
          expectError(res, 403, 'forbidden');
          expect(res.body.capability, label).toBe(probe.capability);
        }
      }
    });
  }

  it('lets an auditor read but never write, and a developer never manage administrators', async () => {
    expectStatus(await origin.call('GET', '/api/v1/connections', undefined, bearer(tokens.auditor)), 200);
    expectError(await origin.call('DELETE', '/api/v1/cache/entries', undefined, bearer(tokens.auditor)), 403, 'forbidden');
    expectError(await origin.call('PATCH', `/api/v1/administrators/x`, { active: false }, bearer(tokens.developer)), 403, 'forbidden');
    expectError(await origin.call('DELETE', `/api/v1/administrators/x`, undefined, bearer(tokens.admin)), 403, 'forbidden');
  });
});

describe('workspace memberships', () => {
  it('give their role in their workspace only, and never the server-wide capabilities', async () => {
    const workspace = unique('caps');
    expectStatus(await asAdmin(origin, 'POST', '/api/v1/workspaces', { name: workspace }), 201);
    const dev = unique('member-dev');
    const boss = unique('member-owner');
    const devToken = await adminWithToken(origin, dev, null);
    const bossToken = await adminWithToken(origin, boss, null);
    expectStatus(await asAdmin(origin, 'PUT', `/api/v1/workspaces/${workspace}/members/${dev}`, { role: 'developer' }), 201);
    expectStatus(await asAdmin(origin, 'PUT', `/api/v1/workspaces/${workspace}/members/${boss}`, { role: 'owner' }), 201);

    const scoped = `/w/${workspace}/api/v1`;
    expectStatus(await origin.call('GET', `${scoped}/connections`, undefined, bearer(devToken)), 200);
    expectError(await origin.call('POST', `${scoped}/connections`, { name: unique('c'), db: 'duckdb' }, bearer(devToken)), 403, 'forbidden');
    // No role in `default`: a plain /api/v1 call has nothing to act with.
    expectError(await origin.call('GET', '/api/v1/connections', undefined, bearer(devToken)), 403, 'forbidden');
    const me = await origin.call('GET', `${scoped}/me`, undefined, bearer(devToken));
    expect(me.body).toMatchObject({ role: 'developer', workspace, server_wide: false, data_access: 'all' });
    expect(me.body.capabilities).toEqual(capabilitiesOf('developer'));

    // A workspace owner: an owner's capabilities there, minus the server-wide ones; manages that workspace's members.
    const bossMe = await origin.call('GET', `${scoped}/me`, undefined, bearer(bossToken));
    expect(bossMe.body.capabilities).toContain('config.apply');
    expect(bossMe.body.capabilities).not.toContain('administrators.write');
    expect(bossMe.body.capabilities).not.toContain('workspaces.write');
    expectStatus(await origin.call('POST', `${scoped}/connections`, { name: unique('c'), db: 'duckdb' }, bearer(bossToken)), 201);
    expectError(await origin.call('POST', `${scoped}/administrators`, { name: unique('x'), role: null }, bearer(bossToken)), 403, 'forbidden');
    expectError(await origin.call('DELETE', `/api/v1/workspaces/${workspace}`, undefined, bearer(bossToken)), 403, 'forbidden');
    expectStatus(await origin.call('PUT', `/api/v1/workspaces/${workspace}/members/${dev}`, { role: 'auditor' }, bearer(bossToken)), 200);
    expectError(await origin.call('PUT', `/api/v1/workspaces/${workspace}/members/${boss}`, { role: 'auditor' }, bearer(devToken)), 403, 'forbidden');
    // The membership change is in force on the very next request.
    expectError(await origin.call('DELETE', `${scoped}/cache/entries`, undefined, bearer(devToken)), 403, 'forbidden');
  });
});
