import type { Context } from 'hono';
import { DEFAULT_WORKSPACE } from '../../../access/administration.ts';
import { badRequest } from '../../../errors.ts';
import type { AppEnv } from '../../../http/context.ts';

/** The examples live in the default workspace: a call scoped to another one is refused. */
export function assertDefaultWorkspace(c: Context<AppEnv>): void {
  const workspace = c.get('workspace') ?? DEFAULT_WORKSPACE;
  if (workspace !== DEFAULT_WORKSPACE) throw badRequest(`The examples live in the ${DEFAULT_WORKSPACE} workspace: call /api/v1/examples, not /w/${workspace}/api/v1/examples`);
}
