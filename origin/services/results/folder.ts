import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Env } from '../../env.ts';
import type { Format } from '../../formats/index.ts';

/** Where this origin writes results' chunks: SLUICE_RESULT_DIR, else `results` in the data dir; absolute. */
export const resultFolder = (env: Pick<Env, 'SLUICE_RESULT_DIR' | 'SLUICE_DATA_DIR'>): string => resolve(env.SLUICE_RESULT_DIR ?? join(env.SLUICE_DATA_DIR, 'results'));

/** A chunk's file name: its index and its format's extension. */
export const chunkFile = (index: number, format: Format): string => `${index}.${format}`;

/** Removes a result's chunks (its folder) from this origin's folder; nothing there is no error. */
export function removeChunks(env: Pick<Env, 'SLUICE_RESULT_DIR' | 'SLUICE_DATA_DIR'>, id: string): Promise<void> {
  return rm(join(resultFolder(env), id), { recursive: true, force: true });
}
