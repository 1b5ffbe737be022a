import type { Context } from 'hono';
import type { AppEnv } from '../../../http/context.ts';
import { parseVersion } from '../../../services/queries/lookup.ts';

export const queryPath = (name: string) => `/api/v1/queries/${encodeURIComponent(name)}`;
export const versionPath = (name: string, version: number) => `${queryPath(name)}/versions/${version}`;

/** The `:version` path segment as a number; anything else is 404 `version_not_found`. */
export const versionParam = (c: Context<AppEnv>) => parseVersion(c.req.param('name') ?? '', c.req.param('version') ?? '');
