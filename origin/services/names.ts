import { SluiceError } from '../errors.ts';

const NAME_CHARS = /^[\p{L}\p{N} ._-]{1,100}$/u;

/**
 * The name rule of managed objects: 1-100 letters, digits, spaces, `.`, `_`
 * or `-`; no leading or trailing space (invisible in URLs), not only dots
 * (clients collapse `.`/`..` path segments), and none of `reserved` (route
 * words sharing the name's path segment). Else 400 `invalid_name`.
 */
export function assertObjectName(kind: string, name: string, reserved: ReadonlySet<string> = new Set(), reservedWhy = 'is reserved'): void {
  let problem: string | null = null;
  if (!NAME_CHARS.test(name)) problem = 'must be 1-100 characters: letters, digits, spaces, ".", "_" or "-"';
  else if (name.trim() !== name) problem = 'must not start or end with a space';
  else if (/^\.+$/.test(name)) problem = 'must not consist only of dots';
  else if (reserved.has(name)) problem = reservedWhy;
  if (problem) throw new SluiceError('invalid_name', `${kind} name ${JSON.stringify(name)} ${problem}`, { field: 'name' });
}
