import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allowedPlace } from '../allowed-places.ts';
import { badRequest } from '../errors.ts';
import { keyProblem } from './key.ts';

/**
 * A destination's `url`, read: a bucket prefix (`s3://`, `gs://`, `r2://`)
 * or a local folder (an absolute path or a `file://` URL). A local folder is
 * checked where it really is, `..` and symlinks resolved, against the places
 * the server allows (SLUICE_EXPORT_DIRS) and the places it never writes (its
 * home, its data directory). Checked when a destination is saved and again
 * each time it is opened, as the folders or the settings may have changed.
 */

export const BUCKET_SCHEMES = ['s3', 'gs', 'r2'] as const;
export type BucketScheme = (typeof BUCKET_SCHEMES)[number];

export interface BucketTarget {
  kind: 'bucket';
  scheme: BucketScheme;
  bucket: string;
  /** Without leading or trailing `/`; `''` is the bucket's root. */
  prefix: string;
}

export interface FolderTarget {
  kind: 'folder';
  /** The folder's real absolute path (it may not exist yet). */
  folder: string;
}

export type DestinationTarget = BucketTarget | FolderTarget;

/** Where a local folder may and may not be. */
export interface LocalFolderRules {
  /** SLUICE_EXPORT_DIRS: absolute folders; empty allows none. */
  exportDirs: readonly string[];
  /** SLUICE_DATA_DIR (the embedded store and the example dataset). */
  dataDir: string;
  /** The server's home folder. */
  home: string;
}

const BUCKET_URL = /^(s3|gs|r2):\/\/([^/]*)(?:\/(.*))?$/;
/** Lower-case letters, digits, `.`, `_`, `-`; 3-222 characters, a letter or digit at each end (the three stores' rules, merged). */
const BUCKET_NAME = /^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/;

/** Whether a destination url names a bucket (`s3://`, `gs://`, `r2://`) rather than a local folder. */
export const isBucketUrl = (url: string): boolean => BUCKET_URL.test(url);

const invalidUrl = (problem: string) => badRequest(`url ${problem}`, { errors: { url: problem } });

export function parseDestinationUrl(url: string, rules: LocalFolderRules): DestinationTarget {
  const bucket = BUCKET_URL.exec(url);
  if (bucket) return bucketTarget(bucket[1] as BucketScheme, bucket[2]!, bucket[3] ?? '');
  if (/^file:/i.test(url)) return folderTarget(fileUrlPath(url), rules);
  if (isAbsolute(url)) return folderTarget(url, rules);
  throw invalidUrl('must be s3://bucket/prefix, gs://bucket/prefix, r2://bucket/prefix, an absolute local folder or a file:// URL');
}

function bucketTarget(scheme: BucketScheme, bucket: string, path: string): BucketTarget {
  if (!BUCKET_NAME.test(bucket)) throw invalidUrl(`names the bucket ${JSON.stringify(bucket)}: a bucket name is 3-222 lower-case letters, digits, ".", "_" or "-"`);
  if (/[?#]/.test(path)) throw invalidUrl('may not have a query or fragment (? or #)');
  const prefix = path.replace(/^\/+/, '').replace(/\/+$/, '');
  const problem = prefix === '' ? null : keyProblem(prefix);
  if (problem) throw invalidUrl(`has a prefix that ${problem}`);
  return { kind: 'bucket', scheme, bucket, prefix };
}

function fileUrlPath(url: string): string {
  const refused = () => invalidUrl('is a file:// URL that names no local path (file:///absolute/folder)');
  // `file:x` would parse as `/x`: only the full form names a folder plainly.
  if (!/^file:\/\//i.test(url)) throw refused();
  try {
    return fileURLToPath(url);
  } catch {
    throw refused();
  }
}

function folderTarget(path: string, rules: LocalFolderRules): FolderTarget {
  const place = { allowed: rules.exportDirs, setting: 'SLUICE_EXPORT_DIRS', allowedName: 'export folders', dataDir: rules.dataDir, home: rules.home } as const;
  return { kind: 'folder', folder: allowedPlace(path, place, 'local folder', invalidUrl) };
}
