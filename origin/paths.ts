import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's root folder (the one holding package.json), found from this
 * module's own place. The origin runs from its sources (tsx) or from one
 * bundled file under dist/ (scripts/build.mjs), so files it reads at run time
 * are named from the root, never relative to the module that reads them.
 */
function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

/** A file or folder of the project, by its path from the root. */
export const projectPath = (path: string) => join(ROOT, path);
