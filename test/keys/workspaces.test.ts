import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { KEYS, ROLES, admin, createKey, keyAt, roleAt, startKeysOrigin } from './fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';

/** Keys and roles live in a workspace: a `/w/<workspace>/api/v1/...` call creates there and sees only that workspace's. */

let origin: Origin;
let team: string;
const inTeam = (path: string) => `/w/${encodeURIComponent(team)}${path}`;

beforeAll(async () => {
  origin = await startKeysOrigin();
  team = unique('team');
  const res = await admin(origin, 'POST', '/api/v1/workspaces', { name: team, description: 'keys tests' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
});
afterAll(async () => {
  await origin?.stop();
});

const names = (items: Array<{ name: string }>) => items.map((item) => item.name);

describe('workspace-scoped keys', () => {
  it('creates in the workspace of the path and lists only its keys there', async () => {
    const home = unique('home');
    const away = unique('away');
    expect((await createKey(origin, { name: home })).body.workspace).toBe('default');
    const created = await admin(origin, 'POST', inTeam(KEYS), { name: away });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.workspace).toBe(team);

    const scoped = names((await admin(origin, 'GET', inTeam(KEYS))).body.api_keys);
    expect(scoped).toContain(away);
    expect(scoped).not.toContain(home);
    const everywhere = names((await admin(origin, 'GET', KEYS)).body.api_keys);
    expect(everywhere).toEqual(expect.arrayContaining([home, away]));
  });

  it("answers 404 for another workspace's key on a scoped path", async () => {
    const home = unique('home');
    await createKey(origin, { name: home });
    expectError(await admin(origin, 'GET', inTeam(keyAt(home))), 404, 'key_not_found');
    expectError(await admin(origin, 'PATCH', inTeam(keyAt(home)), { max_rows: 1 }), 404, 'key_not_found');
    expectError(await admin(origin, 'POST', inTeam(`${keyAt(home)}/rotate`)), 404, 'key_not_found');
    expectError(await admin(origin, 'DELETE', inTeam(keyAt(home))), 404, 'key_not_found');
    expect((await admin(origin, 'GET', keyAt(home))).status).toBe(200);
  });

  it('scopes roles the same way, and a scoped key is created only from a role of its workspace', async () => {
    const homeRole = unique('home-role');
    const teamRole = unique('team-role');
    expect((await admin(origin, 'POST', ROLES, { name: homeRole, max_rows: 1 })).status).toBe(201);
    const made = await admin(origin, 'POST', inTeam(ROLES), { name: teamRole, max_rows: 2 });
    expect(made.body.workspace).toBe(team);
    const scoped = names((await admin(origin, 'GET', inTeam(ROLES))).body.roles);
    expect(scoped).toContain(teamRole);
    expect(scoped).not.toContain(homeRole);
    expectError(await admin(origin, 'GET', inTeam(roleAt(homeRole))), 404, 'role_not_found');

    expectError(await admin(origin, 'POST', inTeam(KEYS), { name: unique('k'), role: homeRole }), 404, 'role_not_found');
    const fromTeam = await admin(origin, 'POST', inTeam(KEYS), { name: unique('k'), role: teamRole });
    expect(fromTeam.body).toMatchObject({ workspace: team, max_rows: 2, created_from_role: teamRole });
  });
});
