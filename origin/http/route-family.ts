/** Management routes answer errors as `{error, code, request_id}`; query routes as `{error, ...}`. */
export function isManagementPath(path: string): boolean {
  return path.startsWith('/api/') || path.startsWith('/w/');
}
