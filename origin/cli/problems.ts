import { SluiceError } from '../errors.ts';
import { KEY_VARIABLE } from './server.ts';

/** A failure as the command reports it: lines for a person, a document for `--json`. */
export interface Problem {
  lines: string[];
  json: { error: string; code: string; errors?: Record<string, string>; hint?: string; request_id?: string };
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
  const { hint: ownHint, errors: rawErrors, request_id: requestId, fields } = err.extras as {
    hint?: string;
    errors?: Record<string, string>;
    request_id?: string;
    fields?: string[];
  };
  const errors = rawErrors && typeof rawErrors === 'object' && Object.keys(rawErrors).length > 0 ? rawErrors : undefined;
  const where = file ? `${file}: ` : '';
  const lines: string[] = [];
  if (errors) {
    const count = Object.keys(errors).length;
    lines.push(`sluice: ${where}${count} problem${count === 1 ? '' : 's'}; nothing was changed`);
    for (const [path, problem] of Object.entries(errors)) lines.push(`  ${where}${path}: ${problem}`);
  } else {
    lines.push(`sluice: ${err.message}`);
    if (fields && fields.length > 0 && file) for (const path of fields) lines.push(`  ${where}${path}: unknown field`);
  }
  const hint = ownHint ?? HINTS[err.code] ?? (errors && file ? `Fix ${file} where named above and run the command again.` : undefined);
  if (hint) lines.push(hint);
  if (requestId) lines.push(`(request id ${requestId})`);
  return {
    lines,
    json: {
      error: err.message,
      code: err.code,
      ...(errors ? { errors } : {}),
      ...(hint ? { hint } : {}),
      ...(requestId ? { request_id: requestId } : {}),
    },
  };
}
