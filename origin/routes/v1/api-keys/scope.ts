import type { Context } from 'hono';
import type { AppEnv } from '../../../http/context.ts';

/** The workspace a call is limited to: that of a `/w/<workspace>/api/v1/...` path, else none (every workspace). */
export const scopeOf = (c: Context<AppEnv>): string | undefined => (c.get('workspaceScoped') ? c.get('workspace') : undefined);
