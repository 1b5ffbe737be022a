import type { Context } from 'hono';
import { SluiceError } from '../errors.ts';
import { clientSignal } from './client-signal.ts';
import type { AppEnv } from './context.ts';

/**
 * Runs a row request as one admitted call of its caller (origin/access/usage.ts):
 * refused with 429 when the key already runs `max_concurrent` requests or is
 * past its quota (`Retry-After` set), counted otherwise. The call holds its
 * place until its response has ended: a page when it is answered, a stream
 * when its download ends (complete, failed or abandoned).
 */
export async function admitted(c: Context<AppEnv>, streaming: boolean, run: () => Promise<Response>): Promise<Response> {
  let admission;
  try {
    admission = await c.get('deps').callerUsage.admit(c.get('caller'));
  } catch (err) {
    // A key at its max_concurrent: its body has no retry_after (the spec's shape), but a client may retry in a second.
    if (err instanceof SluiceError && err.status === 429 && err.extras.retry_after === undefined) c.header('Retry-After', '1');
    throw err;
  }
  let response: Response;
  try {
    response = await run();
  } catch (err) {
    admission.release();
    throw err;
  }
  if (!streaming || response.body === null) {
    admission.release();
    return response;
  }
  return releasedAtEnd(response, clientSignal(c), admission.release);
}

/** The same response, calling `release` once its body has ended, failed, been cancelled, or the client went away. */
function releasedAtEnd(response: Response, signal: AbortSignal, release: () => void): Response {
  const done = () => {
    signal.removeEventListener('abort', done);
    release();
  };
  if (signal.aborted) done();
  else signal.addEventListener('abort', done, { once: true });
  const reader = response.body!.getReader();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done: finished, value } = await reader.read();
          if (finished) {
            done();
            controller.close();
          } else {
            controller.enqueue(value);
          }
        } catch (err) {
          done();
          controller.error(err);
        }
      },
      async cancel(reason) {
        done();
        await reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: response.status, headers: response.headers });
}
