import { SluiceError } from '../../errors.ts';

/**
 * How large a configuration file sent over HTTP may be. Applying one runs
 * each object through its verb in one store transaction (new queries in
 * batches, about a millisecond of CPU each; other changes a few statements
 * each), so a file's size is a request's cost: the caps keep one request
 * from holding the store for minutes. A file read at startup or by the local CLI is the operator's
 * own and is not capped.
 */
export interface ConfigLimits {
  maxBytes: number;
  maxObjects: number;
}

const mib = (bytes: number): string => (bytes >= 2 ** 20 ? `${+(bytes / 2 ** 20).toFixed(2)} MiB` : `${bytes} bytes`);

export const configTooLarge = (maxBytes: number): SluiceError =>
  new SluiceError(
    'config_too_large',
    `The configuration file is larger than ${mib(maxBytes)} (SLUICE_CONFIG_MAX_BYTES): split it, apply it on the store itself ("sluice config apply FILE" without --server), or raise the setting`,
    { max_bytes: maxBytes },
  );

/** 413 `config_too_large` when `raw` (the file as parsed, not yet validated) holds more than `maxObjects` objects. */
export function assertObjectCount(raw: unknown, maxObjects: number): void {
  const count = countObjects(raw);
  if (count <= maxObjects) return;
  throw new SluiceError(
    'config_too_large',
    `The configuration file holds ${count} objects, more than ${maxObjects} (SLUICE_CONFIG_MAX_OBJECTS): split it, apply it on the store itself ("sluice config apply FILE" without --server), or raise the setting`,
    { objects: count, max_objects: maxObjects },
  );
}

/** Entries of every list section, and each connection's descriptions with their items. */
function countObjects(raw: unknown): number {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return 0;
  let count = 0;
  for (const [section, value] of Object.entries(raw)) {
    if (Array.isArray(value)) count += value.length;
    else if (section === 'descriptions' && value !== null && typeof value === 'object') {
      for (const entry of Object.values(value)) {
        count += 1;
        const items = (entry as { items?: unknown } | null)?.items;
        if (Array.isArray(items)) count += items.length;
      }
    }
  }
  return count;
}
