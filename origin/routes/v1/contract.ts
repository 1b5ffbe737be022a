import type { Context } from 'hono';
import type { z } from 'zod';
import type { Capability } from '../../access/capabilities.ts';
import type { AppEnv } from '../../http/context.ts';
import type { AppliedKind } from '../../services/config/kinds.ts';
import type { Method } from '../../services/discovery/operations.ts';
import type { ParameterObject } from '../../services/discovery/parameter-schema.ts';
import type { CapabilityArea } from './require-capability.ts';

/**
 * Who may call a route, checked before its body is read: a capability held
 * in the acting workspace; several, in order (the first one missing is
 * named); any administrator; or a rule of the route's own (an
 * administrator's own tokens, a workspace's own owner).
 */
export type Access = Capability | readonly Capability[] | 'administrator' | ((c: Context<AppEnv>) => void | Promise<void>);

/**
 * One operation of the Management API, declared once: the router registers
 * and guards it from this (router.ts) and `/openapi.json` documents it
 * (endpoints.ts).
 */
export interface RouteContract<P extends string = string, B extends z.ZodType = z.ZodType> {
  method: Method;
  /** Hono form, relative to the resource: `/`, `/:name/runs`. */
  path: P;
  /** The operationId: unique and stable, clients generate method names from it. */
  id: string;
  summary: string;
  /** Default: `<area>.read` for GET, `<area>.write` for the rest (refused where the area has no `.write`). */
  access?: Access;
  /** The JSON body, read by `readBody` (unknown fields refused) and handed to the handler. */
  body?: B;
  /**
   * A missing body reads as `{}`: `optional` documents it as optional; `verb`
   * keeps it documented as required and lets the verb name what is missing
   * (a connection's delete answers `reason_required`).
   */
  emptyBody?: 'optional' | 'verb';
  /** A file the handler reads itself (JSON or YAML: a configuration file, a bundle); documented as the body. */
  document?: z.ZodType;
  /** Query-string and header parameters; path parameters come from the path. */
  parameters?: ParameterObject[];
  /** OpenAPI responses when not 200 with a JSON object. */
  responses?: Record<string, unknown>;
  /**
   * Under SLUICE_CONFIG_LOCKED a change to the `:name` object a
   * configuration file manages answers 409 `config_managed`. Default: every
   * method but GET on a path that starts with `/:name`; `false` for routes
   * that change nothing (running an export, probing a destination).
   */
  locked?: boolean;
  handler: (c: Context<AppEnv, P>, body: z.infer<B>) => Response | Promise<Response>;
}

/** A resource folder: where it is mounted and the rules its routes share. */
export interface Resource {
  /** `/api/v1/exports` */
  base: string;
  /** The capability area of the default access; without one every route declares its own. */
  area?: CapabilityArea;
  tag: { name: string; description: string };
  /** The kind of managed object `:name` names, for the configuration lock. */
  lock?: AppliedKind | 'collections';
  /** In matching order: fixed paths before `/:name`. */
  routes: readonly RouteContract[];
}

/** Infers the path's parameters and the body's type for the handler. */
export const defineRoute = <P extends string, B extends z.ZodType = z.ZodType>(route: RouteContract<P, B>): RouteContract =>
  route as unknown as RouteContract;

export const defineResource = (resource: Resource): Resource => resource;

/** 201 with a JSON object. */
export const CREATED = { 201: { $ref: '#/components/responses/Json' } };
