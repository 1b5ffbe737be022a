import { createMiddleware } from 'hono/factory';
import { SluiceError } from '../../errors.ts';
import type { AppEnv } from '../../http/context.ts';

/** `/api/v1` is for administrators only; finer capabilities arrive with access control. */
export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  if (!c.get('caller').admin) throw new SluiceError('forbidden', 'Only administrators may use the Management API');
  await next();
});
