/**
 * The fetch handler of SLUICE_MCP_PORT: the origin's app, for `/mcp` only
 * (same middleware, same sessions); any other path answers 404 there.
 */
export function mcpPortFetch<A extends unknown[]>(fetch: (request: Request, ...rest: A) => Response | Promise<Response>) {
  return (request: Request, ...rest: A): Response | Promise<Response> => {
    if (new URL(request.url).pathname === '/mcp') return fetch(request, ...rest);
    return Response.json({ error: 'Only /mcp is served on this port' }, { status: 404 });
  };
}
