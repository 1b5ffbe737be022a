import type { Context } from 'hono';
import type { AppEnv } from '../../http/context.ts';
import type { AppliedKind } from '../../services/config/kinds.ts';
import { assertCollectionNotManaged, assertNotManaged } from '../../services/config/managed.ts';

/**
 * With SLUICE_CONFIG_LOCKED, a change to the object a route's `:name`
 * names answers 409 `config_managed` when a configuration file manages it
 * (which routes change it: `locked` in their contracts, contract.ts). A
 * create names no existing object, so it passes; an unmanaged object
 * passes. A collection is refused when a managed object names it.
 */
export async function refuseManagedChange(c: Context<AppEnv>, kind: AppliedKind | 'collections'): Promise<void> {
  const deps = c.get('deps');
  const name = c.req.param('name');
  if (!deps.env.SLUICE_CONFIG_LOCKED || name === undefined) return;
  // A collection is no object of a file: renaming one changes the queries, keys and roles it names.
  await (kind === 'collections' ? assertCollectionNotManaged(deps, name) : assertNotManaged(deps, kind, name));
}
