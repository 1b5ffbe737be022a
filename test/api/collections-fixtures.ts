/** Shared helpers of the collection tests. */

export const COLLECTIONS = '/api/v1/collections';
export const collectionAt = (name: string) => `${COLLECTIONS}/${encodeURIComponent(name)}`;
