/** Management routes answer errors as `{error, code, request_id}`; query routes as `{error, ...}`. Shared: the edge answers in the same shapes. */
export function isManagementPath(path: string): boolean {
  return path.startsWith('/api/') || path.startsWith('/w/');
}
