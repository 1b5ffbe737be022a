import { homedir } from 'node:os';
import type { Env } from '../env.ts';
import { DEFAULT_ENDPOINT_DENY } from '../network/endpoint-deny.ts';
import { createFolderStore } from './local.ts';
import { createBucketStore } from './s3.ts';
import type { DestinationSettings, ObjectStore } from './types.ts';
import { type LocalFolderRules, parseDestinationUrl } from './url.ts';

/** Where this server lets a local-folder destination be (SLUICE_EXPORT_DIRS), and where never (its home, its data directory). */
export function localFolderRules(env: Pick<Env, 'SLUICE_EXPORT_DIRS' | 'SLUICE_DATA_DIR'>): LocalFolderRules {
  return { exportDirs: env.SLUICE_EXPORT_DIRS, dataDir: env.SLUICE_DATA_DIR, home: homedir() };
}

/**
 * The store a destination writes to. Its url is checked again now (400 when
 * it is no longer allowed here); nothing is contacted until the first write,
 * and a bucket store connects only to addresses outside SLUICE_ENDPOINT_DENY
 * (the default ranges when the environment given has none). The caller
 * closes it.
 */
export function openObjectStore(
  settings: DestinationSettings,
  env: Pick<Env, 'SLUICE_EXPORT_DIRS' | 'SLUICE_DATA_DIR'> & Partial<Pick<Env, 'SLUICE_ENDPOINT_DENY'>>,
): ObjectStore {
  const target = parseDestinationUrl(settings.url, localFolderRules(env));
  return target.kind === 'folder' ? createFolderStore(target.folder) : createBucketStore(target, settings, env.SLUICE_ENDPOINT_DENY ?? DEFAULT_ENDPOINT_DENY);
}
