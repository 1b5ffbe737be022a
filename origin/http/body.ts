import type { Context } from 'hono';
import type { z } from 'zod';
import { SluiceError, badRequest } from '../errors.ts';

/**
 * Reads a JSON body and validates it. Unknown fields are refused with
 * `unknown_field`; other problems give `invalid_request` with an `errors` map
 * keyed by field path.
 */
export async function readBody<T extends z.ZodType>(c: Context, schema: T, { optional = false } = {}): Promise<z.infer<T>> {
  const text = await c.req.text();
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
  return validate(schema, raw);
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
