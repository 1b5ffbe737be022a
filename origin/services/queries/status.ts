export type VersionStatus = 'published' | 'draft' | 'previous';

/**
 * A version's status, derived from the query's published version: the
 * published one; `draft` when newer than it, or any version while nothing is
 * published; `previous` when older (still runnable by `?version=`).
 */
export function versionStatus(version: number, publishedVersion: number | null): VersionStatus {
  if (publishedVersion === null || version > publishedVersion) return 'draft';
  return version === publishedVersion ? 'published' : 'previous';
}

/**
 * The version that serves after the published one is deleted: the newest
 * older version (never a draft, which is newer), or null when none is older.
 */
export function fallbackAfterDelete(deleted: number, remaining: number[]): number | null {
  const older = remaining.filter((v) => v < deleted);
  return older.length === 0 ? null : Math.max(...older);
}
