import { createMiddleware } from 'hono/factory';
import { DEFAULT_WORKSPACE, holds, isAdministrator } from '../../access/administration.ts';
import { CAPABILITIES, type Capability } from '../../access/capabilities.ts';
import { SluiceError } from '../../errors.ts';
import type { AppEnv } from '../../http/context.ts';
import type { Caller } from '../../access/caller.ts';

/** An area of the Management API: `<area>.read` is a capability (`queries`, `audit`, ...). */
export type CapabilityArea = Capability extends infer C ? (C extends `${infer A}.read` ? A : never) : never;

/** Routes whose capability is not the method's default, as `'METHOD /path'` relative to the router (`:name` matches one segment). */
export type CapabilityOverrides = Record<string, Capability>;

export const scopedKeyForbidden = () => new SluiceError('forbidden', 'Scoped keys cannot use the Management API');

/** A scoped key never reaches `/api/v1`; an anonymous caller never gets this far (401 before). */
export function assertAdministrator(caller: Caller): void {
  if (caller.via === 'key') throw scopedKeyForbidden();
  if (!isAdministrator(caller)) throw new SluiceError('forbidden', 'Only administrators may use the Management API');
}

/** 403 `forbidden` naming the capability, unless the caller holds it in the acting workspace. */
export function assertCapability(caller: Caller, workspace: string, capability: Capability): void {
  assertAdministrator(caller);
  if (!holds(caller, workspace, capability)) {
    throw new SluiceError('forbidden', `This needs the ${capability} capability`, { capability });
  }
}

/**
 * The guard of a Management API router: GET and HEAD need `<area>.read`,
 * every other method `<area>.write` (an area with no `.write` refuses other
 * methods unless overridden), with per-route overrides where a POST only
 * reads (`'POST /validate': 'queries.read'`) or needs a narrower capability.
 * The break-glass key and an open server hold everything; a named
 * administrator holds what their role in the acting workspace gives
 * (origin/access/administration.ts).
 */
export function requireCapability(area: CapabilityArea, overrides: CapabilityOverrides = {}) {
  const routes = Object.entries(overrides).map(([route, capability]) => {
    const [method, path] = route.split(' ') as [string, string];
    const pattern = new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]\w*/g, '[^/]+').replace(/\/$/, '')}/?$`);
    return { method: method.toUpperCase(), pattern, capability };
  });
  const read = `${area}.read` as Capability;
  const write = (CAPABILITIES as readonly string[]).includes(`${area}.write`) ? (`${area}.write` as Capability) : undefined;

  return createMiddleware<AppEnv>(async (c, next) => {
    const caller = c.get('caller');
    assertAdministrator(caller);
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    // The router's own path: the matched pattern of this middleware is `<mount>/*`.
    const base = c.req.routePath.replace(/\/\*$/, '');
    const relative = c.req.path.slice(base.length) || '/';
    const override = routes.find((r) => r.method === method && r.pattern.test(relative));
    const capability = override?.capability ?? (method === 'GET' ? read : write);
    if (!capability) throw new SluiceError('forbidden', `${c.req.method} is not allowed on ${area}`);
    assertCapability(caller, c.get('workspace') ?? DEFAULT_WORKSPACE, capability);
    await next();
  });
}
