import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { presentedSignInToken } from '../access/jwt.ts';
import { badRequest } from '../errors.ts';
import { readBody } from '../http/body.ts';
import type { AppEnv } from '../http/context.ts';
import { streamIfAsync } from '../http/result-response.ts';
import { respondRun } from '../http/run-response.ts';
import { type RowOptions, requestRowOptions, rowOptionFields } from '../services/run/options.ts';
import type { SavedSource } from '../services/run/request.ts';
import { RESERVED_NAMES } from '../../shared/parameters/index.ts';
import { requestHeader } from '../http/request-header.ts';

const bodySchema = z.strictObject({
  params: z.record(z.string(), z.unknown()).optional(),
  connection_name: z.string().min(1, 'connection_name must not be empty').optional(),
  version: z.union([z.string(), z.number()]).optional(),
  ...rowOptionFields,
});

const OPTIONS: ReadonlySet<string> = new Set(RESERVED_NAMES);

type Transport = Pick<SavedSource, 'supplied' | 'source' | 'problems' | 'connection' | 'version'> & { options: RowOptions };

/**
 * `GET /q/<name>`: every query-string argument but the request options is a
 * parameter (text, converted by its rules); `POST /q/<name>`: parameters in
 * the body's `params` (typed JSON). Both run the published version unless
 * `version` is asked, and answer rows like `/execute_sql`.
 */
export const runQuery = new Hono<AppEnv>()
  .get('/q/:name', (c) => run(c, fromQueryString(c)))
  .post('/q/:name', async (c) => run(c, await fromBody(c)));

function run(c: Context<AppEnv>, transport: Transport): Promise<Response> {
  const { options, ...source } = transport;
  return respondRun(c, {
    caller: c.get('caller'),
    source: { kind: 'saved', ...source, name: c.req.param('name')!, signInToken: presentedSignInToken((header) => requestHeader(c, header)) },
    options,
    transport: 'http',
  });
}

function fromQueryString(c: Context<AppEnv>): Transport {
  const { single, repeated } = splitArguments(c);
  const entries = Object.entries(single);
  const options = Object.fromEntries(entries.filter(([key]) => OPTIONS.has(key)));
  const supplied = Object.fromEntries(entries.filter(([key]) => !OPTIONS.has(key)));
  const repeatedOptions = repeated.filter((key) => OPTIONS.has(key));
  if (repeatedOptions.length > 0) throw givenTwice(repeatedOptions);
  const problems = Object.fromEntries(repeated.map((key) => [key, 'was given more than once: give one value']));
  return {
    supplied,
    source: 'query',
    problems,
    connection: options.connection_name || undefined,
    version: versionOption(options.version),
    options: requestRowOptions(c.get('deps').env, streamIfAsync(c, options), {}, c.get('caller')),
  };
}

async function fromBody(c: Context<AppEnv>): Promise<Transport> {
  const body = await readBody(c, bodySchema, { optional: true });
  // On a POST the query string may carry the request options; parameters belong in `params`.
  const { single, repeated } = splitArguments(c);
  if (repeated.length > 0) throw givenTwice(repeated);
  const stray = Object.keys(single).filter((key) => !OPTIONS.has(key));
  if (stray.length > 0) throw badRequest(`Unknown query-string argument${stray.length > 1 ? 's' : ''} ${stray.join(', ')}: a POST takes its parameters in the body's params`);
  return {
    supplied: body.params ?? {},
    source: 'json',
    connection: single.connection_name || body.connection_name,
    version: versionOption(single.version ?? body.version),
    options: requestRowOptions(c.get('deps').env, streamIfAsync(c, single), body, c.get('caller')),
  };
}

/** Query-string arguments given once, and the names given more than once (never silently first or last). */
function splitArguments(c: Context<AppEnv>): { single: Record<string, string>; repeated: string[] } {
  const all = Object.entries(c.req.queries());
  return {
    // fromEntries: a `__proto__` argument stays an own key.
    single: Object.fromEntries(all.filter(([, values]) => values.length === 1).map(([key, values]) => [key, values[0]])),
    repeated: all.filter(([, values]) => values.length > 1).map(([key]) => key),
  };
}

const givenTwice = (names: string[]) =>
  badRequest(`Argument${names.length > 1 ? 's' : ''} ${names.join(', ')} given more than once: give one value`);

function versionOption(raw: string | number | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const text = String(raw);
  if (!/^[1-9]\d{0,8}$/.test(text)) throw badRequest('version must be a whole number of at least 1');
  return Number(text);
}
