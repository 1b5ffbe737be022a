import type { Caller } from './caller.ts';

/**
 * Who owns what a caller starts (an MCP session, a stored result): a key (by
 * id, so both secrets of a rotation share it), an administrator, the server
 * key or everyone on an open server. Another caller is told it does not
 * exist.
 */
export function ownerOf(caller: Caller): string {
  if (caller.key) return `key:${caller.key.id}`;
  if (caller.administrator) return `administrator:${caller.administrator.id}`;
  return caller.via;
}
