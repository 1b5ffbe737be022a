import autocannon from 'autocannon';

export interface LoadResult {
  connections: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses other than 2xx, plus socket errors and timeouts. */
  failures: number;
  requests: number;
}

export interface LoadTarget {
  url: string;
  /** A JSON body sent with POST; none: a GET. */
  body?: unknown;
  /** Headers sent with every request (an API key). */
  headers?: Record<string, string>;
  /**
   * Builds each request instead (a POST with a JSON body unless said
   * otherwise; `path` replaces the URL's path and query), through autocannon's per-request path (`setupRequest`),
   * which costs the load generator more than a fixed request: compare
   * targets built so only with targets built so too. autocannon resets its
   * context before every request of a one-request sequence, so nothing
   * carries over from one request to the next on a connection.
   */
  perRequest?: () => { method?: 'GET' | 'POST'; path?: string; headers: Record<string, string>; body?: unknown };
}

function run(target: LoadTarget, connections: number, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: target.url,
        ...(target.perRequest
          ? {
              method: 'POST' as const,
              requests: [
                {
                  setupRequest: (request: autocannon.Request) => {
                    const { method = 'POST', path, headers, body } = target.perRequest!();
                    return { ...request, method, ...(path ? { path } : {}), headers: { ...request.headers, ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
                  },
                },
              ],
            }
          : target.body === undefined
            ? { method: 'GET' as const, headers: target.headers }
            : { method: 'POST' as const, headers: { 'content-type': 'application/json', ...target.headers }, body: JSON.stringify(target.body) }),
        connections,
        duration: seconds,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/** A short run whose numbers are thrown away: JIT, pools and caches warm up. */
export async function warmUp(target: LoadTarget, connections: number, seconds = 2): Promise<void> {
  await run(target, connections, seconds);
}

/** autocannon against one target at a fixed concurrency for `seconds`. */
export async function loadTest(target: LoadTarget, connections: number, seconds: number): Promise<LoadResult> {
  const r = await run(target, connections, seconds);
  return {
    connections,
    seconds,
    requestsPerSecond: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    failures: r.non2xx + r.errors + r.timeouts,
    requests: r.requests.total,
  };
}
