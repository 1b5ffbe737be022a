import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import { openObjectStore } from '../../object-storage/index.ts';
import { createFolderStore } from '../../object-storage/local.ts';
import type { ObjectStore } from '../../object-storage/types.ts';
import { isBucketUrl } from '../../object-storage/url.ts';
import { NO_REQUEST } from '../../observability/request-context.ts';
import type { ResultRow } from '../../store/schema/index.ts';
import { findDestination, settingsOf } from '../destinations/lookup.ts';
import { chunkFile, removeChunks, resultFolder } from './folder.ts';
import { chunkLink, linkKey } from './links.ts';

/**
 * Where a result's chunks are kept: by default in the result folder of the
 * origin that wrote them, served through its own signed links; with
 * SLUICE_RESULT_DESTINATION, under the prefix of a saved bucket destination
 * (`<url>/<id>/<index>.<format>`), which every origin reaches and whose
 * presigned URLs are the links.
 */
export interface ResultPlace {
  /** The destination's name; null: the writing origin's result folder. */
  destination: string | null;
  /** The destination's url when the result started: its chunks stay there if the destination is changed later. */
  location: string | null;
}

const misconfigured = (problem: string) => new SluiceError('internal_error', `SLUICE_RESULT_DESTINATION ${problem}`);

/** Where a new result goes: checked before anything is stored, so a misconfigured server refuses the request rather than failing results. */
export async function newResultPlace(deps: AppDeps): Promise<ResultPlace> {
  const name = deps.env.SLUICE_RESULT_DESTINATION;
  if (name === undefined) return { destination: null, location: null };
  const row = await findDestination(deps.store.db, name).catch((err: unknown) => {
    if (err instanceof SluiceError && err.code === 'destination_not_found') throw misconfigured(`names "${name}", which is not a saved destination: save it (POST /api/v1/destinations), or unset the variable to keep results in SLUICE_RESULT_DIR`);
    throw err;
  });
  if (!isBucketUrl(row.url)) throw misconfigured(`names "${name}", a local folder: results are kept in a folder with SLUICE_RESULT_DIR; the variable takes an s3://, gs:// or r2:// destination`);
  return { destination: name, location: row.url };
}

/** The store that holds a result's chunks; the caller closes it. */
export async function openResultStore(deps: AppDeps, place: ResultPlace): Promise<ObjectStore> {
  if (place.destination === null || place.location === null) return createFolderStore(resultFolder(deps.env));
  const row = await findDestination(deps.store.db, place.destination).catch((err: unknown) => {
    if (err instanceof SluiceError && err.code === 'destination_not_found') throw new SluiceError('internal_error', `The destination "${place.destination}" that holds this result's chunks is no longer saved`);
    throw err;
  });
  return openObjectStore({ ...settingsOf(deps, row), url: place.location }, deps.env);
}

/**
 * Removes a result's chunks wherever they are. A folder elsewhere is its
 * origin's to remove (its sweep finds folders whose result is gone). Never
 * throws: a failure is logged and returned false, so the caller can try again.
 */
export async function removeResultChunks(deps: AppDeps, row: Pick<ResultRow, 'id'> & ResultPlace): Promise<boolean> {
  if (row.destination === null) {
    await removeChunks(deps.env, row.id);
    return true;
  }
  let store: ObjectStore | undefined;
  try {
    store = await openResultStore(deps, row);
    await store.removeUnder(row.id);
    return true;
  } catch (err) {
    deps.logger.warn({ ...NO_REQUEST, result: row.id, err: { message: (err as Error).message } }, 'removing a stored result\'s chunks from its destination failed; trying again at the next sweep');
    return false;
  } finally {
    store?.close();
  }
}

/** Links to each of the row's chunks, good until `expires` (unix seconds): the origin's signed links, or the bucket's presigned URLs. */
export async function chunkLinks(deps: AppDeps, row: ResultRow, expires: number): Promise<string[]> {
  if (row.chunks.length === 0) return [];
  if (row.destination === null) {
    const key = await linkKey(deps);
    return row.chunks.map((chunk) => chunkLink(key, row.linkBase, row.id, chunk.index, expires));
  }
  const store = await openResultStore(deps, row);
  try {
    return await Promise.all(row.chunks.map((chunk) => store.link!(`${row.id}/${chunkFile(chunk.index, row.format)}`, { expiresAt: expires, filename: `${row.id}-${chunkFile(chunk.index, row.format)}` })));
  } finally {
    store.close();
  }
}
