import { SluiceError } from '../errors.ts';

/**
 * `If-Match` on a change: absent passes; otherwise one of its ETags (or `*`)
 * must be `current`, else 412 `precondition_failed`. Checked against the row
 * locked in the change's own transaction.
 */
export function assertIfMatch(ifMatch: string | undefined, current: string, what: string): void {
  if (ifMatch === undefined || ifMatch.trim() === '') return;
  const presented = ifMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (presented.includes('*') || presented.includes(current)) return;
  throw new SluiceError('precondition_failed', `${what} has changed since it was read (current ETag ${current})`, { etag: current });
}
