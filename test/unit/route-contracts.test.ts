import { describe, expect, it } from 'vitest';
import { defineResource, defineRoute } from '../../origin/routes/v1/contract.ts';
import { MANAGEMENT_API } from '../../origin/routes/v1/index.ts';
import { accessOf, isLocked, routerOf } from '../../origin/routes/v1/router.ts';

/**
 * The route contracts of the Management API (origin/routes/v1/contract.ts):
 * what the guard asks of each route and which changes the configuration lock
 * refuses, read from the same declarations the router registers.
 */

const every = MANAGEMENT_API.flatMap((resource) => resource.routes.map((route) => ({ resource, route, at: `${route.method} ${resource.base}${route.path}` })));

describe('route contracts', () => {
  it('give every route an access: its own, or its area default', () => {
    const access = Object.fromEntries(every.map(({ resource, route, at }) => [at, typeof accessOf(resource, route) === 'function' ? 'own rule' : accessOf(resource, route)]));
    expect(every.length).toBeGreaterThan(90);
    expect(access).toMatchObject({
      'get /api/v1/queries/': 'queries.read',
      'post /api/v1/queries/validate': 'queries.read',
      'patch /api/v1/queries/:name': 'queries.write',
      'post /api/v1/exports/:name/runs': 'exports.run',
      'delete /api/v1/history/': 'history.forget',
      'post /api/v1/examples/': 'examples.write',
      'get /api/v1/mcp/status': 'settings.read',
      'get /api/v1/config/export': 'config.apply',
      'post /api/v1/collections/import': ['collections.write', 'queries.write'],
      'get /api/v1/me/': 'administrator',
      'get /api/v1/administrators/:name/tokens': 'own rule',
      'put /api/v1/workspaces/:name/members/:admin': 'own rule',
    });
  });

  it('lock every change to a named object but runs and probes; reads and fixed paths are never locked', () => {
    const locked = every.filter(({ resource, route }) => resource.lock && isLocked(route)).map(({ at }) => at);
    const changes = every.filter(({ resource, route }) => resource.lock && route.method !== 'get' && route.path.startsWith('/:name')).map(({ at }) => at);
    expect(changes.filter((at) => !locked.includes(at))).toEqual(['post /api/v1/destinations/:name/test', 'post /api/v1/exports/:name/runs']);
    expect(locked.filter((at) => !changes.includes(at))).toEqual([]);
    expect(locked).toContain('post /api/v1/connections/:name/descriptions/import');
  });

  it('refuse a route with no access where the area has no write capability', () => {
    const route = defineRoute({ method: 'post', path: '/x', id: 'x', summary: 'x', handler: (c) => c.json({}) });
    expect(() => routerOf(defineResource({ base: '/api/v1/audit', area: 'audit', tag: { name: 't', description: 't' }, routes: [route] }))).toThrow(/audit\.write is no capability/);
    expect(() => routerOf(defineResource({ base: '/api/v1/x', tag: { name: 't', description: 't' }, routes: [route] }))).toThrow(/declares no access/);
  });
});
