import { randomBytes } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './context.ts';

const ID_BYTES = 6;
/** Random bytes are drawn a block at a time: one call into the generator per 682 requests, not one per request. */
const BLOCK_BYTES = 4092;
let block = Buffer.alloc(0);
let offset = 0;

function nextId(): string {
  if (offset + ID_BYTES > block.length) {
    block = randomBytes(BLOCK_BYTES);
    offset = 0;
  }
  const id = block.toString('hex', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return id;
}

/** Every response carries `X-Request-Id`: 12 hex characters, also on every log line of the request. */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const id = nextId();
  c.set('requestId', id);
  c.header('X-Request-Id', id);
  await next();
  c.res.headers.set('X-Request-Id', id);
});
