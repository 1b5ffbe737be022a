import { SluiceError, badRequest } from '../../../errors.ts';
import { queryParam } from '../../../services/discovery/operations.ts';
import { forgetCaller } from '../../../services/history/forget.ts';
import { defineRoute } from '../contract.ts';

const ARGUMENTS = ['caller', 'dry_run'];

/**
 * DELETE /api/v1/history?caller=<name>[&dry_run=true]: forgets a caller's
 * runs, events and usage counts (`forget_caller`, audited by the SHA-256 of
 * the name). Answers the counts; a dry run only counts. Owners only
 * (`history.forget`).
 */
export const forget = defineRoute({
  method: 'delete',
  path: '/',
  id: 'forgetCaller',
  summary: "Forget a caller: delete their runs, events and usage counts (owners; audited by the name's SHA-256)",
  access: 'history.forget',
  parameters: [queryParam('caller', { type: 'string' }, "The caller's name", true), queryParam('dry_run', { type: 'boolean' }, 'Only count')],
  handler: async (c) => {
    const args = c.req.queries();
    const unknown = Object.keys(args).filter((name) => !ARGUMENTS.includes(name));
    if (unknown.length > 0) throw new SluiceError('unknown_field', `Unknown argument${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}; use caller, dry_run`, { fields: unknown });
    const name = single(args, 'caller');
    if (name === undefined || name === '') throw badRequest('caller is required: DELETE /api/v1/history?caller=<name>');
    const dryRun = single(args, 'dry_run') ?? 'false';
    if (dryRun !== 'true' && dryRun !== 'false') throw badRequest('dry_run must be true or false');
    return c.json(await forgetCaller(c.get('deps'), c.get('caller'), { caller: name, dryRun: dryRun === 'true' }));
  },
});

function single(args: Record<string, string[]>, name: string): string | undefined {
  const values = args[name];
  if (values && values.length > 1) throw badRequest(`${name} was given more than once`);
  return values?.[0];
}
