import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';

/**
 * Where the server lets a caller name a local path: inside one of the
 * folders an operator setting lists (SLUICE_EXPORT_DIRS for local-folder
 * destinations, SLUICE_FILE_DIRS for the files of connections), and never
 * its home folder or its data directory, wherever the setting points. Paths
 * are compared where they really are: `..` and symlinks resolved.
 */
export interface PlaceRules {
  /** The allowed folders: absolute; empty allows none. */
  allowed: readonly string[];
  /** The setting that lists them, named in every refusal. */
  setting: 'SLUICE_EXPORT_DIRS' | 'SLUICE_FILE_DIRS';
  /** How a refusal calls them: `export folders`, `file folders`. */
  allowedName: string;
  /** SLUICE_DATA_DIR (the embedded store and the example dataset). */
  dataDir: string;
  /** The server's home folder. */
  home: string;
}

/**
 * The real absolute path of `path` when `rules` allow it; otherwise throws
 * `refuse(problem)`, the problem a phrase about the path (`is the file
 * /etc/x, which is not inside ...`). `noun` names what the path is.
 */
export function allowedPlace(path: string, rules: PlaceRules, noun: string, refuse: (problem: string) => Error): string {
  if (rules.allowed.length === 0) throw refuse(`is a ${noun}, and the server allows none: ${rules.setting} is not set`);
  const place = resolvable(path, refuse);
  const allowed = rules.allowed.map((dir) => resolvable(dir, refuse));
  if (!allowed.some((dir) => isWithin(place, dir))) {
    throw refuse(`is the ${noun} ${place}, which is not inside the allowed ${rules.allowedName} (${rules.setting}): ${allowed.join(', ')}`);
  }
  const home = resolvable(rules.home, refuse);
  if (isWithin(home, place)) throw refuse(`is the ${noun} ${place}, which is or holds the server's home folder`);
  const data = resolvable(rules.dataDir, refuse);
  if (isWithin(data, place) || isWithin(place, data)) {
    throw refuse(`is the ${noun} ${place}, which is, holds or lies in the server's data directory (SLUICE_DATA_DIR)`);
  }
  return place;
}

/** `realLocation`, a path that cannot be followed (a symlink loop, a folder the server may not search) refused. */
function resolvable(path: string, refuse: (problem: string) => Error): string {
  try {
    return realLocation(path);
  } catch (err) {
    throw refuse(`names ${path}, which cannot be resolved (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** True when `path` is `folder` or lies inside it (both real and absolute). */
export function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/**
 * Where `path` really is: `..` resolved, and the deepest part that exists
 * followed through its symlinks (the rest does not exist yet, so it is no
 * symlink).
 */
export function realLocation(path: string): string {
  const missing: string[] = [];
  for (let current = resolve(path); ; current = dirname(current)) {
    try {
      return join(realpathSync(current), ...missing.reverse());
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      if (dirname(current) === current) return resolve(path);
    }
    missing.push(basename(current));
  }
}
