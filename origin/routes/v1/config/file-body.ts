import type { Context } from 'hono';
import { badRequest } from '../../../errors.ts';
import { bodyBytes, isYamlBody } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { type ConfigFile, configTooLarge, fileSha256, readConfigFile } from '../../../services/config/index.ts';
import type { ReadConfigFile } from '../../../services/config/file.ts';
import { queryParam } from '../../../services/discovery/operations.ts';

/**
 * The configuration file a request sends: YAML under `application/yaml`, else
 * JSON; known by the SHA-256 of its bytes. Past SLUICE_CONFIG_MAX_BYTES or
 * SLUICE_CONFIG_MAX_OBJECTS it is 413 `config_too_large`, before any work.
 * `read` carries its shape problems to `applyConfig`, which adds the store's.
 */
export async function readConfigBody(c: Context<AppEnv>): Promise<{ file: ConfigFile; sha256: string; read: ReadConfigFile }> {
  const env = c.get('deps').env;
  const maxBytes = env.SLUICE_CONFIG_MAX_BYTES;
  const bytes = await bodyBytes(c, { bytes: maxBytes, tooLarge: () => configTooLarge(maxBytes) });
  if (bytes.length === 0) throw badRequest('Request body is required: the configuration file, as JSON or as YAML with Content-Type: application/yaml');
  const read = await readConfigFile(bytes, isYamlBody(c) ? 'yaml' : 'json', { maxObjects: env.SLUICE_CONFIG_MAX_OBJECTS });
  return { file: read.file, sha256: fileSha256(bytes), read };
}

/** A `true`/`false` query parameter; absent is false. */
export function flagParam(c: Context<AppEnv>, name: string): boolean {
  const value = c.req.query(name);
  if (value === undefined || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw badRequest(`${name} must be true or false`, { errors: { [name]: 'must be true or false' } });
}

/** A `true`/`false` query parameter, as documented. */
export const flag = (name: string, description: string) => queryParam(name, { type: 'boolean' }, description);
