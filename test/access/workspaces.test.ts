import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { ADMIN_KEY, adminWithToken, asAdmin, auditOf, bearer, expectStatus } from './fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';

/** Workspaces, members, who sees which, and `/w/<workspace>/api/v1` seeing only that workspace's objects. */

let origin: Origin;

beforeAll(async () => {
  origin = await startOrigin({ env: { SLUICE_API_KEY: ADMIN_KEY } });
});

afterAll(async () => {
  await origin?.stop();
});

/** The names in a listing: `{workspaces: [...]}`, or `{members: [...]}` by `admin`. */
const names = (res: { body: any }, field = 'name') => (res.body[field === 'admin' ? 'members' : 'workspaces'] as any[]).map((entry) => entry[field]);

describe('workspaces', () => {
  it('are created, read, changed and deleted by owners; default is protected', async () => {
    const name = unique('ws');
    const created = await asAdmin(origin, 'POST', '/api/v1/workspaces', { name, description: 'Team A' });
    expectStatus(created, 201);
    expect(created.body).toMatchObject({ name, description: 'Team A', created_by: 'admin', members: 0 });
    expectError(await asAdmin(origin, 'POST', '/api/v1/workspaces', { name }), 409, 'workspace_exists');
    expectError(await asAdmin(origin, 'POST', '/api/v1/workspaces', { name: 'Not A Path' }), 400, 'invalid_name');
    expectError(await asAdmin(origin, 'POST', '/api/v1/workspaces', { name: unique('ws'), color: 'red' }), 400, 'unknown_field');

    const read = await asAdmin(origin, 'GET', `/api/v1/workspaces/${name}`);
    const etag = read.headers.get('etag')!;
    expectStatus(await asAdmin(origin, 'PATCH', `/api/v1/workspaces/${name}`, { description: 'Team A, renamed' }, { 'if-match': etag }), 200);
    expectError(await asAdmin(origin, 'PATCH', `/api/v1/workspaces/${name}`, { description: 'x' }, { 'if-match': etag }), 412, 'precondition_failed');
    expect((await auditOf(origin, 'update_workspace', name))[0].changes).toEqual({ description: { from: 'Team A', to: 'Team A, renamed' } });

    expectError(await asAdmin(origin, 'DELETE', '/api/v1/workspaces/default'), 409, 'workspace_protected');
    expectStatus(await asAdmin(origin, 'GET', '/api/v1/workspaces/default'), 200);
    expectStatus(await asAdmin(origin, 'DELETE', `/api/v1/workspaces/${name}`), 200);
    expectError(await asAdmin(origin, 'GET', `/api/v1/workspaces/${name}`), 404, 'workspace_not_found');
    expect(await auditOf(origin, 'create_workspace', name)).toHaveLength(1);
    expect(await auditOf(origin, 'delete_workspace', name)).toHaveLength(1);
  });

  it('are deleted only when empty, naming what they still hold', async () => {
    const name = unique('full');
    expectStatus(await asAdmin(origin, 'POST', '/api/v1/workspaces', { name }), 201);
    const connection = unique('held');
    expectStatus(await asAdmin(origin, 'POST', `/w/${name}/api/v1/connections`, { name: connection, db: 'duckdb' }), 201);
    const refused = await asAdmin(origin, 'DELETE', `/api/v1/workspaces/${name}`);
    expectError(refused, 409, 'workspace_not_empty');
    expect(refused.body.contents).toEqual({ connections: 1, destinations: 0, queries: 0, api_keys: 0, roles: 0 });
    expectStatus(await asAdmin(origin, 'DELETE', `/api/v1/connections/${connection}`, { reason: 'test' }), 200);
    expectStatus(await asAdmin(origin, 'DELETE', `/api/v1/workspaces/${name}`), 200);
  });
});

describe('members and visibility', () => {
  it('show every workspace to server-wide owners, admins and auditors, and their own to others', async () => {
    const [a, b] = [unique('vis-a'), unique('vis-b')];
    for (const ws of [a, b]) expectStatus(await asAdmin(origin, 'POST', '/api/v1/workspaces', { name: ws }), 201);
    const member = unique('member');
    const memberToken = await adminWithToken(origin, member, null);
    const auditor = await adminWithToken(origin, unique('auditor'), 'auditor');
    const developer = await adminWithToken(origin, unique('developer'), 'developer');

    const added = await asAdmin(origin, 'PUT', `/api/v1/workspaces/${a}/members/${member}`, { role: 'developer' });
    expectStatus(added, 201);
    expect(added.body).toMatchObject({ admin: member, role: 'developer', added_by: 'admin' });
    expectStatus(await asAdmin(origin, 'PUT', `/api/v1/workspaces/${a}/members/${member}`, { role: 'auditor' }), 200);
    expect((await auditOf(origin, 'add_member', a))[0].changes).toEqual({ admin: member, role: 'developer' });
    expect((await auditOf(origin, 'update_member', a))[0].changes).toEqual({ admin: member, role: { from: 'developer', to: 'auditor' } });
    expectError(await asAdmin(origin, 'PUT', `/api/v1/workspaces/${a}/members/${unique('ghost')}`, { role: 'owner' }), 404, 'admin_not_found');
    expectError(await asAdmin(origin, 'PUT', `/api/v1/workspaces/${a}/members/${member}`, { role: null }), 400, 'invalid_request');

    const all = names(await asAdmin(origin, 'GET', '/api/v1/workspaces'));
    expect(all).toEqual(expect.arrayContaining(['default', a, b]));
    expect(names(await origin.call('GET', '/api/v1/workspaces', undefined, bearer(auditor)))).toEqual(all);
    expect(names(await origin.call('GET', '/api/v1/workspaces', undefined, bearer(memberToken)))).toEqual([a]);
    expect(names(await origin.call('GET', '/api/v1/workspaces', undefined, bearer(developer)))).toEqual(['default']);

    expectStatus(await origin.call('GET', `/api/v1/workspaces/${a}`, undefined, bearer(memberToken)), 200);
    expectError(await origin.call('GET', `/api/v1/workspaces/${b}`, undefined, bearer(memberToken)), 404, 'workspace_not_found');
    expectError(await origin.call('GET', `/api/v1/workspaces/${b}/members`, undefined, bearer(memberToken)), 404, 'workspace_not_found');
    expect(names(await origin.call('GET', `/api/v1/workspaces/${a}/members`, undefined, bearer(memberToken)), 'admin')).toEqual([member]);
    expectError(await origin.call('DELETE', `/api/v1/workspaces/${a}/members/${member}`, undefined, bearer(memberToken)), 403, 'forbidden');

    const me = await origin.call('GET', '/api/v1/me', undefined, bearer(memberToken));
    expect(me.body).toMatchObject({ role: null, workspace: 'default', server_wide: false, capabilities: [], data_access: 'none', workspaces: [{ name: a, role: 'auditor' }] });

    expectStatus(await asAdmin(origin, 'DELETE', `/api/v1/workspaces/${a}/members/${member}`), 200);
    expectError(await asAdmin(origin, 'DELETE', `/api/v1/workspaces/${a}/members/${member}`), 404, 'member_not_found');
    expect(await auditOf(origin, 'remove_member', a)).toHaveLength(1);
    // No longer a member: the very next request no longer sees it.
    expectError(await origin.call('GET', `/w/${a}/api/v1/me`, undefined, bearer(memberToken)), 404, 'workspace_not_found');
  });
});

describe('workspace-scoped calls', () => {
  it('list and create only in their workspace; plain /api/v1 lists every workspace\'s objects', async () => {
    const [a, b] = [unique('iso-a'), unique('iso-b')];
    for (const ws of [a, b]) expectStatus(await asAdmin(origin, 'POST', '/api/v1/workspaces', { name: ws }), 201);
    const [inA, inB] = [unique('conn-a'), unique('conn-b')];
    expectStatus(await asAdmin(origin, 'POST', `/w/${a}/api/v1/connections`, { name: inA, db: 'duckdb' }), 201);
    expectStatus(await asAdmin(origin, 'POST', `/w/${b}/api/v1/connections`, { name: inB, db: 'duckdb' }), 201);
    const [qA, qB] = [unique('query-a'), unique('query-b')];
    expectStatus(await asAdmin(origin, 'POST', `/w/${a}/api/v1/queries`, { name: qA, sql: 'select 1 as x', connection_name: inA }), 201);
    expectStatus(await asAdmin(origin, 'POST', `/w/${b}/api/v1/queries`, { name: qB, sql: 'select 1 as x', connection_name: inB }), 201);

    const connectionsOf = async (prefix: string) =>
      ((await asAdmin(origin, 'GET', `${prefix}/api/v1/connections`)).body.connections as any[]).map((c) => c.name);
    const queriesOf = async (prefix: string) => ((await asAdmin(origin, 'GET', `${prefix}/api/v1/queries`)).body.queries as any[]).map((q) => q.name);
    expect(await connectionsOf(`/w/${a}`)).toEqual([inA]);
    expect(await connectionsOf(`/w/${b}`)).toEqual([inB]);
    expect(await connectionsOf('')).toEqual(expect.arrayContaining([inA, inB]));
    expect(await connectionsOf('/w/default')).not.toContain(inA);
    expect(await queriesOf(`/w/${a}`)).toEqual([qA]);
    expect(await queriesOf(`/w/${b}`)).toEqual([qB]);
    expect(await queriesOf('')).toEqual(expect.arrayContaining([qA, qB]));

    const contents = await asAdmin(origin, 'DELETE', `/api/v1/workspaces/${a}`);
    expect(contents.body.contents).toEqual({ connections: 1, destinations: 0, queries: 1, api_keys: 0, roles: 0 });

    expectError(await asAdmin(origin, 'GET', '/w/nowhere/api/v1/connections'), 404, 'workspace_not_found');
    const me = await asAdmin(origin, 'GET', `/w/${b}/api/v1/me`);
    expect(me.body).toMatchObject({ name: 'admin', via: 'break-glass', workspace: b });
  });
});
