import { randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, realpath, rename, rm, rmdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { basename, dirname, join } from 'node:path';
import { badRequest } from '../errors.ts';
import { watchBody } from './body.ts';
import { storeFailed } from './failure.ts';
import { assertSafeKey } from './key.ts';
import type { ObjectStore, ObjectWriteOptions, ReservedFile, WrittenObject } from './types.ts';
import { isWithin } from '../allowed-places.ts';

/**
 * A local folder as an object store. An object is written to a hidden
 * temporary file beside its final name (`.<name>.<random>.tmp`, the same
 * folder so the rename never crosses file systems), flushed to disk, then
 * renamed into place: a reader sees the whole file or none. A failed or
 * cancelled write removes its temporary file.
 */

const noSecret = (text: string) => text;

/** Removes the folders a failed write made, deepest first, stopping at one another write has filled meanwhile. */
async function removeEmptyFolders(deepest: string, first: string): Promise<void> {
  for (let folder = deepest; folder.length >= first.length; folder = dirname(folder)) {
    try {
      await rmdir(folder);
    } catch {
      return;
    }
  }
}

export function createFolderStore(folder: string): ObjectStore {
  /** The object's final path and a new temporary name beside it, its folders made (`made`: the first one made, if any). */
  async function place(key: string): Promise<{ target: string; final: string; temporary: string; made: string | undefined }> {
    assertSafeKey(key);
    const target = join(folder, ...key.split('/'));
    let directory: string;
    let made: string | undefined;
    try {
      made = await mkdir(dirname(target), { recursive: true });
      directory = await realpath(dirname(target));
    } catch (err) {
      throw storeFailed(err, `creating the folder of ${target}`, noSecret);
    }
    // A sub-folder replaced by a symlink since the destination was checked must not lead the write elsewhere.
    if (!isWithin(directory, folder)) throw badRequest(`Object key ${JSON.stringify(key)} leads outside the destination's folder ${folder}`, { errors: { key: 'escapes the folder' } });
    const final = join(directory, basename(target));
    return { target, final, temporary: join(directory, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`), made };
  }

  async function reserveFile(key: string): Promise<ReservedFile> {
    const { target, final, temporary, made } = await place(key);
    let committed = false;
    return {
      path: temporary,
      async commit(signal) {
        signal.throwIfAborted();
        let bytes: number;
        try {
          // On disk before the rename, so a crash never leaves an empty file under the final name.
          const file = await open(temporary, 'r+');
          try {
            await file.sync();
            bytes = (await file.stat()).size;
          } finally {
            await file.close();
          }
          await rename(temporary, final);
        } catch (err) {
          throw storeFailed(err, `writing ${final}`, noSecret);
        }
        committed = true;
        return { location: final, bytes };
      },
      async discard() {
        if (committed) return;
        await rm(temporary, { force: true }).catch(() => {});
        if (made !== undefined) await removeEmptyFolders(dirname(target), made);
      },
    };
  }

  async function put(key: string, source: AsyncIterable<Uint8Array>, { signal }: ObjectWriteOptions): Promise<WrittenObject> {
    signal.throwIfAborted();
    const { target, final, temporary, made } = await place(key);
    const body = watchBody(source, signal);
    // `flush`: on disk before the rename, so a crash never leaves an empty file under the final name.
    const out = createWriteStream(temporary, { flags: 'wx', flush: true });
    try {
      await pipeline(Readable.from(body.chunks), out);
      signal.throwIfAborted();
      await rename(temporary, final);
    } catch (err) {
      // A body that fails at once can end the pipeline before the file is even open: removed once it is closed.
      if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
      await rm(temporary, { force: true });
      if (made !== undefined) await removeEmptyFolders(dirname(target), made);
      if (signal.aborted) throw signal.reason;
      if (body.failure !== undefined) throw body.failure;
      throw storeFailed(err, `writing ${final}`, noSecret);
    }
    return { location: final, bytes: body.bytes };
  }

  return {
    put,
    reserveFile,
    async probe() {
      const probe = async function* () {
        yield Buffer.from('Sluice destination probe: removed once written\n');
      };
      const { location } = await put(`.sluice-probe-${randomUUID()}`, probe(), { contentType: 'text/plain', signal: new AbortController().signal });
      await rm(location, { force: true });
    },
    async removeUnder(under) {
      assertSafeKey(under);
      await rm(join(folder, ...under.split('/')), { recursive: true, force: true });
    },
    close() {},
  };
}
