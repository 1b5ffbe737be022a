import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * s3rver's filesystem store with all-or-nothing writes. s3rver 3.7.1 writes
 * a body straight into the object's (or part's) file, so a cut upload left a
 * partial object that lists and reads like a whole one, replacing the
 * previous version, and a partial part; S3 keeps nothing it did not fully
 * receive. Here a body goes to a file in `staging` (outside the buckets,
 * which s3rver reads from its root folder) and is renamed into place once
 * complete; a failed body is removed and the request fails. A part renamed
 * into an upload that was aborted meanwhile fails with NoSuchUpload instead
 * of recreating the upload's folder. Completing a multipart upload writes
 * through `putObject` too.
 */

interface S3rverObject {
  bucket: string;
  key: string;
  content: NodeJS.ReadableStream | Buffer;
  metadata: Record<string, string>;
}

interface FilesystemStore {
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
}

interface Staged {
  path: string;
  size: number;
  md5: string;
}

const require = createRequire(import.meta.url);
const FilesystemStoreClass = require('s3rver/lib/stores/filesystem.js') as new (root: string) => FilesystemStore;
const S3Error = require('s3rver/lib/models/error.js') as new (code: string, message: string) => Error;

export class AtomicStore extends FilesystemStoreClass {
  constructor(
    root: string,
    private readonly staging: string,
  ) {
    super(root);
  }

  /** Writes a whole body to a new file in `staging`; removes it and rethrows when the body fails. */
  private async stage(content: NodeJS.ReadableStream | Buffer): Promise<Staged> {
    await mkdir(this.staging, { recursive: true });
    const path = join(this.staging, randomBytes(12).toString('hex'));
    const md5 = createHash('md5');
    let size = 0;
    try {
      if (Buffer.isBuffer(content)) {
        md5.update(content);
        size = content.length;
        await writeFile(path, content);
      } else {
        const count = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            md5.update(chunk);
            size += chunk.length;
            done(null, chunk);
          },
        });
        await pipeline(content, count, createWriteStream(path));
      }
    } catch (err) {
      await rm(path, { force: true });
      throw err;
    }
    return { path, size, md5: md5.digest('hex') };
  }

  async putObject(object: S3rverObject): Promise<{ size: number; md5: string }> {
    const staged = await this.stage(object.content);
    const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(objectPath), { recursive: true });
    await rename(staged.path, objectPath);
    await this.putMetadata(object.bucket, object.key, object.metadata, staged.md5);
    return { size: staged.size, md5: staged.md5 };
  }

  async putPart(bucket: string, uploadId: string, partNumber: string | number, content: NodeJS.ReadableStream): Promise<{ size: number; md5: string }> {
    const staged = await this.stage(content);
    const partPath = join(this.getResourcePath(bucket, undefined, 'uploads'), uploadId, String(partNumber));
    try {
      await rename(staged.path, partPath);
      await writeFile(`${partPath}.md5`, staged.md5);
    } catch (err) {
      await rm(staged.path, { force: true });
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      throw new S3Error('NoSuchUpload', 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.');
    }
    return { size: staged.size, md5: staged.md5 };
  }
}
