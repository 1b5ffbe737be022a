import type { TraceSpan } from '../observability/tracing/span.ts';

/**
 * Object storage as exports use it: a destination's prefix (a bucket prefix
 * on S3, GCS or R2, or a local folder) that takes whole objects. An object
 * is either complete or absent: a failed or cancelled write leaves nothing
 * behind (a multipart upload is aborted; a local temporary file is removed,
 * and the final name is only ever a complete file).
 */

/** A destination's settings with its secret opened (decrypted, `${VAR}` expanded). */
export interface DestinationSettings {
  name: string;
  /** `s3://bucket/prefix`, `gs://bucket/prefix`, `r2://bucket/prefix`, or an absolute local folder (or `file://` URL). */
  url: string;
  region: string | null;
  /** An S3-compatible endpoint; null: the scheme's own. */
  endpoint: string | null;
  /** The access key id. */
  user: string | null;
  /** The secret key, opened. */
  password: string | null;
}

export interface WrittenObject {
  /** The full location: `s3://bucket/key`, `gs://…`, `r2://…`, or the file's absolute path. */
  location: string;
  /** The object's exact size. */
  bytes: number;
}

export interface ObjectWriteOptions {
  contentType: string;
  /** Aborting cancels the write and removes what was written. */
  signal: AbortSignal;
  /** The run's span: each part uploaded to object storage is traced under it (`sluice.upload.part`). */
  span?: TraceSpan;
}

/** A hidden temporary file where an object's bytes are written by someone else (DuckDB writing parquet). */
export interface ReservedFile {
  /** The temporary file's path, not yet created: the writer creates it. */
  path: string;
  /** Makes the file written at `path` the object: flushed to disk, then renamed into place. */
  commit(signal: AbortSignal): Promise<WrittenObject>;
  /** Removes the temporary file (and the folders made for it) unless it was committed. Never throws. */
  discard(): Promise<void>;
}

export interface ObjectStore {
  /**
   * Writes the object at `key` (relative to the destination's prefix; never
   * escaping it) from `body`, pulled as the store takes it. Resolves once the
   * object is complete; rejects (502 `connection_failed` for a store that
   * refuses or cannot be reached) with nothing left behind.
   */
  put(key: string, body: AsyncIterable<Uint8Array>, options: ObjectWriteOptions): Promise<WrittenObject>;
  /**
   * For a store that keeps files (a local folder): a temporary file beside
   * the object's final name for another writer to fill, so the bytes are
   * never copied. Object storage has none; its objects come from `put`.
   */
  reserveFile?(key: string): Promise<ReservedFile>;
  /**
   * Removes every object under `folder/` (relative to the prefix), and
   * abandons the unfinished uploads there, so what a stopped writer left
   * goes too. Nothing there is no error.
   */
  removeUnder(folder: string): Promise<void>;
  /**
   * For object storage: a presigned GET URL of the object at `key`, good
   * until `expiresAt` (unix seconds), downloaded as `filename`. A local
   * folder has none: its files are served by the origin.
   */
  link?(key: string, options: { expiresAt: number; filename: string }): Promise<string>;
  /** Writes one small probe object under the prefix and removes it: proves the credential may write there. */
  probe(): Promise<void>;
  /** Releases the client's sockets. */
  close(): void;
}
