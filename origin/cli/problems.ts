import { SluiceError } from '../errors.ts';
import { type ConfigProblem, describeProblem as describeConfigProblem } from '../services/config/problems.ts';
import { KEY_VARIABLE } from './server.ts';

/** A failure as the command reports it: lines for a person, a document for `--json`. */
export interface Problem {
  lines: string[];
  json: { error: string; code: string; errors?: unknown; hint?: string; request_id?: string };
}


/**
 * The problems an error lists with their places: a map `{path: problem}`
 * (the API's `errors` for a body) or a list `[{path, message, code?}]` (a
 * configuration file's `invalid_config`).
 */
function placedProblems(errors: unknown): ConfigProblem[] {
  if (Array.isArray(errors)) {
    return errors.filter((e): e is ConfigProblem => typeof e?.message === 'string').map((e) => ({ path: typeof e.path === 'string' ? e.path : '', message: e.message, code: e.code }));
  }
  if (errors && typeof errors === 'object') {
    return Object.entries(errors).map(([path, message]) => ({ path, message: typeof message === 'string' ? message : JSON.stringify(message) }));
  }
  return [];
}

/** What to do, by code, when the error carries no hint of its own. */
const HINTS: Partial<Record<string, string>> = {
  unauthorized: `The server refused the key: set ${KEY_VARIABLE} to the server key (SLUICE_API_KEY) or a valid administrator token (slc_adm_...).`,
  forbidden: `The key's administrator may not do this: use an owner's token (config apply needs an owner) in ${KEY_VARIABLE}.`,
  collection_not_found: 'No query is filed in that collection and no grant names it: check the name (names are case-sensitive).',
  not_found: 'The server has no such route: check --server, and that the origin runs this version of Sluice.',
  rate_limited: 'The server is limiting this key or address: wait and run the command again.',
  internal_error: "The server failed: its log has the details under the request id shown.",
};

/**
 * A thrown error as the command reports it. `file` is the file the command
 * read: every problem with a path in it is written `FILE: path: problem`, so
 * an editor or CI annotation can find it. Anything but a `SluiceError` is a
 * bug or an environment failure, reported by its message.
 */
export function describeProblem(err: unknown, file?: string): Problem {
  if (!(err instanceof SluiceError)) {
    const message = err instanceof Error ? err.message : String(err);
    return { lines: [`sluice: ${message}`], json: { error: message, code: 'internal_error' } };
  }
  const { hint: ownHint, errors, request_id: requestId, fields } = err.extras as {
    hint?: string;
    errors?: unknown;
    request_id?: string;
    fields?: string[];
  };
  const placed = placedProblems(errors);
  const where = file ? `${file}: ` : '';
  const lines: string[] = [];
  if (placed.length > 0) {
    lines.push(`sluice: ${where}${placed.length} problem${placed.length === 1 ? '' : 's'}; nothing was changed`);
    for (const p of placed) lines.push(`  ${where}${describeConfigProblem(p).trimStart()}`);
  } else {
    lines.push(`sluice: ${err.message}`);
    if (fields && fields.length > 0 && file) for (const path of fields) lines.push(`  ${where}${path}: unknown field`);
  }
  const hint = ownHint ?? HINTS[err.code] ?? (placed.length > 0 && file ? `Fix ${file} where named above and run the command again.` : undefined);
  if (hint) lines.push(hint);
  if (requestId) lines.push(`(request id ${requestId})`);
  return {
    lines,
    json: {
      error: err.message,
      code: err.code,
      ...(errors !== undefined ? { errors } : {}),
      ...(hint ? { hint } : {}),
      ...(requestId ? { request_id: requestId } : {}),
    },
  };
}
