import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import { serializerFor } from '../../formats/index.ts';
import { RESULT_FORMATS, type ResultFormat } from './start.ts';
import { chunkFile, resultFolder } from './folder.ts';
import { chunkSignatureValid, linkKey } from './links.ts';

/** The shape of the ids results are given (start.ts): nothing else names a folder. */
const RESULT_ID = /^res_[A-Za-z0-9_-]{22}$/;

export interface ChunkFile {
  path: string;
  size: number;
  contentType: string;
  filename: string;
}

/**
 * The file a chunk link names, once its signature holds for exactly that
 * id, index and expiry (403 `invalid_signature` otherwise, before anything
 * else is said) and the expiry has not passed (410 `link_expired`). A chunk
 * no longer kept (deleted, expired) is 404 `result_not_found`. No key is
 * asked for: the signature is the credential.
 */
export async function chunkFileOf(deps: AppDeps, id: string, indexText: string, query: { expires?: string; signature?: string }): Promise<ChunkFile> {
  const index = /^(0|[1-9]\d{0,8})$/.test(indexText) ? Number(indexText) : NaN;
  const expires = /^\d{1,12}$/.test(query.expires ?? '') ? Number(query.expires) : NaN;
  const key = await linkKey(deps);
  if (!RESULT_ID.test(id) || !Number.isInteger(index) || !Number.isInteger(expires) || !chunkSignatureValid(key, id, index, expires, query.signature ?? '')) {
    throw new SluiceError('invalid_signature', 'The link is not valid: its id, index, expiry or signature was changed. Ask GET /results/{id} for fresh links.');
  }
  if (expires * 1000 < Date.now()) throw new SluiceError('link_expired', 'The link has expired. Ask GET /results/{id} for fresh links.');
  // Every format's name asked at once: one trip through the thread pool before the first byte, not one per format.
  const folder = join(resultFolder(deps.env), id);
  const candidates = await Promise.all(
    RESULT_FORMATS.map(async (format) => {
      const path = join(folder, chunkFile(index, format));
      return { format, path, found: await stat(path).catch(() => null) };
    }),
  );
  const chunk = candidates.find(({ found }) => found?.isFile());
  if (chunk) return { path: chunk.path, size: chunk.found!.size, contentType: (await serializerFor(chunk.format as ResultFormat)).contentType, filename: `${id}-${chunkFile(index, chunk.format)}` };
  throw new SluiceError('result_not_found', `No chunk ${index} of result ${id}: it was deleted or has expired`);
}
