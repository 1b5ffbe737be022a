import { Hono } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { registerCreate } from './create.ts';
import { registerDelete } from './delete.ts';
import { registerGet } from './get.ts';
import { registerList } from './list.ts';
import { registerMembers } from './members.ts';
import { registerUpdate } from './update.ts';

/**
 * `/api/v1/workspaces`: any administrator lists and reads the workspaces
 * they may see (404 for others); creating, changing and deleting need
 * `workspaces.write` (server-wide owners); members are managed by a server
 * owner or the workspace's own owner.
 */
export const workspacesApi = new Hono<AppEnv>();
registerList(workspacesApi);
registerCreate(workspacesApi);
registerGet(workspacesApi);
registerUpdate(workspacesApi);
registerDelete(workspacesApi);
registerMembers(workspacesApi);
