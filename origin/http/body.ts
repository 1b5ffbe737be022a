import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import type { z } from 'zod';
import { SluiceError, badRequest } from '../errors.ts';
import { DEPTH_PROBLEM, nestsDeeperThan } from '../../shared/json-depth.ts';
import { NUL_PROBLEM, nulPaths } from '../../shared/nul.ts';
import { incomingOf, requestHeader } from './request-header.ts';

/** The largest request body read (JSON bodies: SQL, parameters, definitions). */
export const MAX_BODY_BYTES = 10 * 2 ** 20;

/** The most bytes a body may have, and the 413 past it. */
export interface BodyLimit {
  bytes: number;
  tooLarge: () => SluiceError;
}

const DEFAULT_LIMIT: BodyLimit = {
  bytes: MAX_BODY_BYTES,
  tooLarge: () => new SluiceError('payload_too_large', `Request body is larger than ${MAX_BODY_BYTES / 2 ** 20} MiB`),
};

/**
 * Reads a JSON body and validates it. Unknown fields are refused with
 * `unknown_field`; other problems give `invalid_request` with an `errors` map
 * keyed by field path; a body past MAX_BODY_BYTES gives 413
 * `payload_too_large` before it is all read; one nesting deeper than 64
 * levels is 400.
 */
export async function readBody<T extends z.ZodType>(c: Context, schema: T, { optional = false } = {}): Promise<z.infer<T>> {
  const text = await bodyText(c);
  let raw: unknown = {};
  if (text.trim() !== '') {
    try {
      raw = JSON.parse(text);
    } catch {
      throw badRequest('Request body is not valid JSON');
    }
  } else if (!optional) {
    throw badRequest('Request body is required');
  }
  refuseDeep(raw);
  refuseNul(raw);
  return validate(schema, raw);
}

/** Whether a request says its body is YAML (`application/yaml`, `text/yaml`, either with `x-`). */
export const isYamlBody = (c: Context): boolean => /^(application|text)\/(x-)?yaml\b/i.test(c.req.header('content-type') ?? '');

/**
 * Reads a file sent as the body, JSON or YAML by its content type, parsed by
 * `parse` (whose errors name the file's kind); NULs refused as in `readBody`.
 * The document is returned unvalidated: files are checked by their verb,
 * which reports every problem with its path in the file.
 */
export async function readDocument(c: Context, parse: (text: string, syntax: 'json' | 'yaml') => unknown): Promise<unknown> {
  const text = await bodyText(c);
  if (text.trim() === '') throw badRequest('Request body is required');
  const raw = parse(text, isYamlBody(c) ? 'yaml' : 'json');
  refuseDeep(raw);
  refuseNul(raw);
  return raw;
}

/** A body nesting past MAX_JSON_DEPTH is refused before anything else walks it (shared/json-depth.ts). */
function refuseDeep(raw: unknown): void {
  if (nestsDeeperThan(raw)) throw badRequest(`Request body ${DEPTH_PROBLEM}`);
}

/**
 * No string or key of a body may hold a NUL: none is text the store (or a
 * PostgreSQL connection) could keep (shared/nul.ts). `params` holds parameter
 * values, which the run checks itself and reports by parameter name.
 */
function refuseNul(raw: unknown): void {
  const paths = nulPaths(raw).filter((path) => !path.startsWith('params.'));
  if (paths.length === 0) return;
  const errors = Object.fromEntries(paths.map((path) => [path || 'body', NUL_PROBLEM]));
  throw badRequest(`Invalid request: ${Object.keys(errors).join(', ')} ${NUL_PROBLEM}`, { errors });
}

export function validate<T extends z.ZodType>(schema: T, raw: unknown): z.infer<T> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const unknown = result.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k].join('.')) : [],
  );
  if (unknown.length > 0) {
    throw new SluiceError('unknown_field', `Unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, { fields: unknown });
  }
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) errors[issue.path.join('.') || 'body'] ??= issue.message;
  const summary = Object.entries(errors).map(([field, message]) => `${field}: ${message}`).join('; ');
  throw badRequest(`Invalid request: ${summary}`, { errors });
}

const bodyText = async (c: Context): Promise<string> => (await bodyBytes(c)).toString('utf8');

/**
 * The body's bytes as sent (a configuration file is known by their SHA-256).
 * On Node they are read from the request itself: Hono would first build a
 * whole fetch Request (a web stream over the Node one, headers, an abort
 * signal) to read ~100 bytes, which cost more than the rest of a one-row
 * lookup's handling. Bodies are read here only, so nothing else has started
 * on the Node stream. A route with a limit of its own (a configuration file)
 * passes it, with the error that names its setting.
 */
export async function bodyBytes(c: Context, limit: BodyLimit = DEFAULT_LIMIT): Promise<Buffer> {
  const incoming = incomingOf(c);
  const declared = Number(requestHeader(c, 'content-length'));
  if (declared > limit.bytes) throw limit.tooLarge();
  if (!incoming) {
    const bytes = Buffer.from(await c.req.arrayBuffer());
    if (bytes.length > limit.bytes) throw limit.tooLarge();
    return bytes;
  }
  return readIncoming(incoming, limit);
}

/**
 * Collects the Node request's body. Past the limit the rest is let through
 * unread (Node discards what a finished response leaves), so the client
 * still gets its 413 instead of a reset connection.
 */
function readIncoming(incoming: IncomingMessage, limit: BodyLimit): Promise<Buffer> {
  if (incoming.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: () => void) => {
      // A client that drops an unread remainder must not raise an unhandled 'error'.
      incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose).on('error', () => {});
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit.bytes) settle(() => reject(limit.tooLarge()));
      else chunks.push(chunk);
    };
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks, size)));
    const onError = (error: Error) => settle(() => reject(error));
    const onClose = () => settle(() => reject(badRequest('The request body ended early')));
    incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
