/** The rows of a raw `execute`: PGlite answers `{rows}`, postgres.js an array of rows. */
export function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? (result as T[]) : (result as { rows: T[] }).rows;
}
