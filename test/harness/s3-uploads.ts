import { readFile, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * s3rver 3.7.1 keeps each multipart upload's parts on disk but answers
 * ListMultipartUploads with NotImplemented and AbortMultipartUpload with
 * MethodNotAllowed. The test S3 server's proxy (s3-proxy.ts) serves both
 * from this folder, s3rver's own layout: `<root>/<bucket>/._S3rver_uploads/
 * <uploadId>/` holding `key`, `metadata` and one file per part.
 */

export interface PendingUpload {
  key: string;
  uploadId: string;
  initiated: Date;
  /** Part files on disk, finished or not. */
  parts: number;
}

const uploadsDir = (root: string, bucket: string) => join(root, bucket, '._S3rver_uploads');

/** Upload ids are s3rver's 32 hex characters: anything else never names a folder. */
const isUploadId = (id: string) => /^[0-9a-f]{32}$/.test(id);

export async function bucketExists(root: string, bucket: string): Promise<boolean> {
  return stat(join(root, bucket)).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

export async function uploadExists(root: string, bucket: string, uploadId: string): Promise<boolean> {
  if (!isUploadId(uploadId)) return false;
  return stat(join(uploadsDir(root, bucket), uploadId)).then(
    () => true,
    () => false,
  );
}

/**
 * Every upload folder of a bucket, oldest first. A folder without its `key`
 * file is listed with key '', whatever the prefix, so that no stray part
 * goes unseen.
 */
export async function pendingUploads(root: string, bucket: string, prefix = ''): Promise<PendingUpload[]> {
  const dir = uploadsDir(root, bucket);
  const ids = await readdir(dir).catch(() => [] as string[]);
  const uploads = await Promise.all(
    ids.filter(isUploadId).map(async (uploadId): Promise<PendingUpload | undefined> => {
      const folder = join(dir, uploadId);
      const files = await readdir(folder).catch(() => undefined);
      if (!files) return undefined;
      const key = await readFile(join(folder, 'key'), 'utf8').catch(() => '');
      const initiated = (await stat(folder)).birthtime;
      return { key, uploadId, initiated, parts: files.filter((name) => /^\d+$/.test(name)).length };
    }),
  );
  return uploads
    .filter((u): u is PendingUpload => u !== undefined && (u.key === '' || u.key.startsWith(prefix)))
    .sort((a, b) => a.initiated.getTime() - b.initiated.getTime() || a.uploadId.localeCompare(b.uploadId));
}

/** Removes an upload and all its parts (retried: a part may be renamed into the folder while it is emptied). */
export async function removeUpload(root: string, bucket: string, uploadId: string): Promise<void> {
  if (isUploadId(uploadId)) await rm(join(uploadsDir(root, bucket), uploadId), { recursive: true, force: true, maxRetries: 3 });
}
