import { Hono } from 'hono';
import { z } from 'zod';
import { presentedSignInToken } from '../access/jwt.ts';
import { badRequest } from '../errors.ts';
import { readBody } from '../http/body.ts';
import type { AppEnv } from '../http/context.ts';
import { byteRange } from '../http/byte-range.ts';
import { fileBody } from '../http/file-body.ts';
import { requestScopeOf } from '../http/request-scope.ts';
import { DEFAULT_WAIT_SECONDS, linkBaseOf, respondResult } from '../http/result-response.ts';
import { respondDryRun } from '../http/run-response.ts';
import { chunkFileOf } from '../services/results/chunk-file.ts';
import { deleteResult, viewResult } from '../services/results/read.ts';
import { DEFAULT_CHUNK_ROWS, startResult } from '../services/results/start.ts';
import { requestRowOptions } from '../services/run/options.ts';
import type { RunSource } from '../services/run/request.ts';

const whole = (name: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.number({ error: `${name} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}` }).int(`${name} must be a whole number`).min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`);

const bodySchema = z.strictObject({
  sql: z.string().min(1, 'sql must not be empty').optional(),
  query: z.string().min(1, 'query must not be empty').optional(),
  version: whole('version', 1).optional(),
  mongo: z
    .strictObject({
      collection: z.unknown(),
      filter: z.unknown().optional(),
      projection: z.unknown().optional(),
      sort: z.unknown().optional(),
      limit: whole('limit', 0).optional(),
      skip: whole('skip', 0).optional(),
    })
    .optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  connection_name: z.string().min(1, 'connection_name must not be empty').optional(),
  format: z.string().optional(),
  wait: whole('wait', 0, 60).optional(),
  chunk_rows: whole('chunk_rows', 1).optional(),
  timeout: z.union([z.string(), z.number()]).optional(),
  dry_run: z.boolean({ error: 'dry_run must be true or false' }).optional(),
});

type Body = z.infer<typeof bodySchema>;

/** What to run: exactly one of `sql` (with `connection_name`), `query` (a saved query) and `mongo` (a find, with `connection_name`). */
function sourceOf(body: Body, signInToken: string | undefined): RunSource {
  const given = [body.sql, body.query, body.mongo].filter((part) => part !== undefined).length;
  if (given !== 1) throw badRequest('Give exactly one of sql, query and mongo');
  if (body.version !== undefined && body.query === undefined) throw badRequest('version goes with query');
  if (body.query !== undefined) {
    return { kind: 'saved', name: body.query, version: body.version, connection: body.connection_name, supplied: body.params ?? {}, source: 'json', signInToken };
  }
  if (body.connection_name === undefined) throw badRequest('connection_name is required');
  if (body.sql !== undefined) return { kind: 'sql', sql: body.sql, params: body.params ?? {}, connection: body.connection_name };
  const find = body.mongo!;
  return { kind: 'find', connection: body.connection_name, collection: find.collection, filter: find.filter, projection: find.projection, sort: find.sort, skip: find.skip ?? 0, limit: find.limit ?? 0, params: body.params ?? {} };
}

/**
 * Stored results (docs/reference/results.md): `POST /results` runs ad-hoc
 * SQL, a saved query or a find as a stream would, writing its rows as
 * numbered chunk files; the answer is the result (200 once finished within
 * `wait` seconds, else 202 with `Location`), whose chunks are fetched
 * through signed links that need no key.
 */
export const resultsRoute = new Hono<AppEnv>()
  .post('/results', async (c) => {
    const deps = c.get('deps');
    const body = await readBody(c, bodySchema);
    const caller = c.get('caller');
    const source = sourceOf(body, presentedSignInToken((header) => c.req.header(header)));
    const options = requestRowOptions(deps.env, { dry_run: c.req.query('dry_run') }, { format: body.format ?? 'ndjson', timeout: body.timeout, stream: true, dry_run: body.dry_run }, caller);
    if (options.dryRun) return respondDryRun(c, { caller, source, options, transport: 'result' });
    const id = await startResult(deps, {
      caller,
      source,
      options,
      chunkRows: body.chunk_rows ?? DEFAULT_CHUNK_ROWS,
      scope: requestScopeOf(c),
      linkBase: linkBaseOf(c),
    });
    return respondResult(c, id, body.wait ?? DEFAULT_WAIT_SECONDS);
  })
  .get('/results/:id', async (c) => c.json(await viewResult(c.get('deps'), c.get('caller'), c.req.param('id'))))
  .delete('/results/:id', async (c) => {
    await deleteResult(c.get('deps'), c.get('caller'), c.req.param('id'));
    return c.body(null, 204);
  });

/**
 * A chunk through its signed link: no key, the signature is the credential.
 * Sent whole (200) or as one byte range (206, `Range: bytes=a-b`), so a cut
 * download resumes.
 */
export const resultChunkRoute = new Hono<AppEnv>().get('/results/:id/chunks/:index', async (c) => {
  const file = await chunkFileOf(c.get('deps'), c.req.param('id'), c.req.param('index'), { expires: c.req.query('expires'), signature: c.req.query('signature') });
  const headers: Record<string, string> = {
    'Content-Type': file.contentType,
    'Content-Disposition': `attachment; filename="${file.filename}"`,
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, no-store',
  };
  const range = byteRange(c.req.header('range'), file.size);
  if (range === 'unsatisfiable') return c.body(null, 416, { ...headers, 'Content-Range': `bytes */${file.size}` });
  const [start, end] = range ?? [0, file.size - 1];
  const body = file.size === 0 ? null : fileBody(file.path, start, end);
  headers['Content-Length'] = String(file.size === 0 ? 0 : end - start + 1);
  if (range) headers['Content-Range'] = `bytes ${start}-${end}/${file.size}`;
  return new Response(body, { status: range ? 206 : 200, headers });
});
