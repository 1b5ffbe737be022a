/**
 * Polls `check` until it gives a truthy value, and returns that value: a
 * state that settles in the background (a log line written as the request
 * ends, a lapsed lease, a statement gone from the server). A check may also
 * throw (an `expect` not met yet). When the time is up, throws the last
 * failure: the check's own error, or one naming `what` and its last answer.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { what = 'the condition', timeoutMs = 10_000, intervalMs = 50 }: { what?: string; timeoutMs?: number; intervalMs?: number } = {},
): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let failure: unknown;
    try {
      const value = await check();
      if (value) return value as Exclude<T, false | null | undefined | 0 | ''>;
      failure = new Error(`${what}: not so within ${timeoutMs / 1000} s (last answer: ${String(value)})`);
    } catch (error) {
      failure = error;
    }
    if (Date.now() > deadline) throw failure;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
