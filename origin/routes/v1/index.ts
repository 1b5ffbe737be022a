import type { Hono } from 'hono';
import type { AppEnv } from '../../http/context.ts';
import type { Endpoint } from '../../services/discovery/operations.ts';
import { administratorsApi } from './administrators/index.ts';
import { alertsApi } from './alerts/index.ts';
import { apiKeysApi } from './api-keys/index.ts';
import { auditApi } from './audit/index.ts';
import { cacheApi } from './cache/index.ts';
import { collectionsApi } from './collections/index.ts';
import { configApi } from './config/index.ts';
import { connectionsApi } from './connections/index.ts';
import type { Resource } from './contract.ts';
import { destinationsApi } from './destinations/index.ts';
import { endpointsOf, tagsOf } from './endpoints.ts';
import { examplesApi } from './examples/index.ts';
import { exportsApi } from './exports/index.ts';
import { historyApi } from './history/index.ts';
import { mcpApi } from './mcp/index.ts';
import { meApi } from './me.ts';
import { queriesApi } from './queries/index.ts';
import { rekeyApi } from './rekey/index.ts';
import { rolesApi } from './roles/index.ts';
import { routerOf } from './router.ts';
import { settingsApi } from './settings/index.ts';
import { usageApi } from './usage/index.ts';
import { workspacesApi } from './workspaces/index.ts';

/** The Management API, in the order `/openapi.json` lists its tags. */
export const MANAGEMENT_API: readonly Resource[] = [
  connectionsApi,
  destinationsApi,
  queriesApi,
  exportsApi,
  historyApi,
  settingsApi,
  collectionsApi,
  examplesApi,
  cacheApi,
  apiKeysApi,
  rolesApi,
  auditApi,
  alertsApi,
  rekeyApi,
  administratorsApi,
  meApi,
  workspacesApi,
  usageApi,
  mcpApi,
  configApi,
];

/** Its operations and tags in `/openapi.json`, read from the contracts. */
export const MANAGEMENT_ENDPOINTS: Endpoint[] = endpointsOf(MANAGEMENT_API);
export const MANAGEMENT_TAGS = tagsOf(MANAGEMENT_API);

/** Mounts every resource's router at its base. */
export function mountManagementApi(app: Hono<AppEnv>): void {
  for (const resource of MANAGEMENT_API) app.route(resource.base, routerOf(resource));
}
