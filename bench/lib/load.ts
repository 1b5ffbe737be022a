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
  /**
   * Builds a connection's request instead (a POST with a JSON body unless
   * said otherwise), once, from the per-connection context autocannon
   * keeps: an MCP session per connection. Requests built so go through
   * autocannon's per-request path, which costs the load generator more
   * than a fixed request: compare them only with targets built so too.
   */
  perConnection?: (context: Record<string, unknown>) => { method?: 'GET' | 'POST'; headers: Record<string, string>; body?: unknown };
}

function run(target: LoadTarget, connections: number, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: target.url,
        ...(target.perConnection
          ? {
              method: 'POST' as const,
              requests: [
                {
                  setupRequest: (request: autocannon.Request, context: object) => {
                    const built = context as Record<string, unknown> & { prepared?: autocannon.Request };
                    if (!built.prepared) {
                      const { method = 'POST', headers, body } = target.perConnection!(built);
                      built.prepared = { ...request, method, headers: { ...request.headers, ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
                    }
                    return built.prepared;
                  },
                },
              ],
            }
          : target.body === undefined
            ? { method: 'GET' as const }
            : { method: 'POST' as const, headers: { 'content-type': 'application/json' }, body: JSON.stringify(target.body) }),
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
