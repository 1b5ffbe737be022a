import type { ErrorCode } from '../../../shared/errors.ts';
import { SluiceError } from '../../errors.ts';

/**
 * One thing wrong with a configuration file: where in the file
 * (`connections[2].password`, `workspace`, `` for the whole file) and what,
 * with the code the Management API would have answered when there is one
 * (`key_secret_taken`, `destination_in_use`...).
 */
export interface ConfigProblem {
  path: string;
  message: string;
  code?: ErrorCode;
}

/** A path in the file as messages write it: `queries[3].parameters.limit`. */
export function problemPath(parts: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** How many problems the error's message lists before "and N more". */
const LISTED = 5;

/** 400 `invalid_config` with every problem in `errors` (a list of `{path, message, code?}`); nothing was changed. */
export function invalidConfig(problems: ConfigProblem[]): SluiceError {
  const shown = problems.slice(0, LISTED).map((p) => (p.path ? `${p.path}: ${p.message}` : p.message));
  const more = problems.length > LISTED ? `; and ${problems.length - LISTED} more` : '';
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  return new SluiceError('invalid_config', `The configuration file has ${count}, nothing was changed: ${shown.join('; ')}${more}`, { errors: problems });
}

/**
 * The problems a verb's refusal stands for, at `path` (the object's place in
 * the file): one per field of its `errors` map, else the error itself.
 */
export function problemsOf(err: SluiceError, path: string): ConfigProblem[] {
  const code = err.code === 'invalid_request' ? undefined : err.code;
  const errors = err.extras.errors;
  if (errors && typeof errors === 'object' && !Array.isArray(errors)) {
    const entries = Object.entries(errors as Record<string, unknown>);
    if (entries.length > 0) {
      return entries.map(([field, message]) => ({
        path: `${path}.${field}`,
        message: typeof message === 'string' ? message : JSON.stringify(message),
        ...(code ? { code } : {}),
      }));
    }
  }
  if (err.code === 'invalid_name') return [{ path: `${path}.name`, message: err.message, code }];
  return [{ path, message: err.message, ...(code ? { code } : {}) }];
}

/** A problem as a person reads it on a line of its own (startup, the CLI). */
export const describeProblem = (p: ConfigProblem): string => `  ${p.path || '(file)'}: ${p.message}${p.code ? ` [${p.code}]` : ''}`;
