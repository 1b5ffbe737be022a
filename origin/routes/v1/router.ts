import { Hono } from 'hono';
import type { Context } from 'hono';
import { CAPABILITIES, type Capability } from '../../access/capabilities.ts';
import { DEFAULT_WORKSPACE } from '../../access/administration.ts';
import { readBody } from '../../http/body.ts';
import type { AppEnv } from '../../http/context.ts';
import { refuseManagedChange } from './config-lock.ts';
import type { Access, Resource, RouteContract } from './contract.ts';
import { assertAdministrator, assertCapability } from './require-capability.ts';

/**
 * The Hono router of a resource: each route of its contract list, guarded
 * by its access, then the configuration lock, then its body read, then its
 * handler. Nothing else is registered, so every route answering has a
 * contract.
 */
export function routerOf(resource: Resource): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  for (const route of resource.routes) {
    const access = accessOf(resource, route);
    const lock = isLocked(route) ? resource.lock : undefined;
    router.on(route.method.toUpperCase(), route.path, async (c) => {
      await check(c, access);
      if (lock) await refuseManagedChange(c, lock);
      const body = route.body ? await readBody(c, route.body, { optional: route.emptyBody !== undefined }) : undefined;
      return route.handler(c as Context<AppEnv, string>, body);
    });
  }
  return router;
}

/** The route's own access, else the area's default for its method. */
export function accessOf(resource: Resource, route: RouteContract): Access {
  if (route.access) return route.access;
  const where = `${route.method.toUpperCase()} ${resource.base}${route.path}`;
  if (!resource.area) throw new Error(`${where} declares no access and its resource has no area`);
  const capability = `${resource.area}.${route.method === 'get' ? 'read' : 'write'}`;
  if (!(CAPABILITIES as readonly string[]).includes(capability)) throw new Error(`${where}: ${capability} is no capability; declare its access`);
  return capability as Capability;
}

/** The lock's default: a change (any method but GET) to the object a leading `/:name` names. */
export const isLocked = (route: RouteContract): boolean => route.locked ?? (route.method !== 'get' && /^\/:name(\/|$)/.test(route.path));

/**
 * The break-glass key and an open server hold everything; a named
 * administrator holds what their role in the acting workspace gives
 * (origin/access/administration.ts); a scoped key never passes.
 */
async function check(c: Context<AppEnv>, access: Access): Promise<void> {
  const caller = c.get('caller');
  if (typeof access === 'function') return access(c);
  if (access === 'administrator') return assertAdministrator(caller);
  const workspace = c.get('workspace') ?? DEFAULT_WORKSPACE;
  for (const capability of typeof access === 'string' ? [access] : access) assertCapability(caller, workspace, capability);
}
