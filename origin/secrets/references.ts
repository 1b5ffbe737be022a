import type { Caller } from '../access/caller.ts';
import { DEFAULT_WORKSPACE, holds } from '../access/administration.ts';
import { SluiceError } from '../errors.ts';

/**
 * Which variables a `${VAR}` reference may name, and who may write one
 * (docs/reference/secrets.md#references). The origin's environment holds
 * its own secrets (`SLUICE_API_KEY`, `SLUICE_SECRET_KEY`...): a reference to
 * any variable would hand them to whoever points a connection at a listener
 * of their own. So the operator lists what may be named, and only those who
 * hold the whole server may write a reference at all (ADR 0023).
 */

/** The prefix of variables meant for references: allowed when SLUICE_SECRET_REFS is unset. */
export const REF_PREFIX = 'SLUICE_REF_';
export const DEFAULT_SECRET_REFS: readonly string[] = [`${REF_PREFIX}*`];

/** A pattern of SLUICE_SECRET_REFS: a variable name, or a prefix of one followed by `*`. */
const PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$|^\*$/;

/**
 * A `SLUICE_` name other than `SLUICE_REF_…` is a setting of the origin:
 * never expandable. Compared without case, as Windows reads the environment.
 */
export const isSetting = (name: string): boolean => {
  const upper = name.toUpperCase();
  return upper.startsWith('SLUICE_') && !upper.startsWith(REF_PREFIX);
};

/** Why `pattern` cannot be in SLUICE_SECRET_REFS, or null. */
export function secretRefPatternProblem(pattern: string): string | null {
  if (!PATTERN.test(pattern)) return `"${pattern}" is neither a variable name nor a PREFIX* pattern`;
  if (!pattern.endsWith('*') && isSetting(pattern)) return `${pattern} is a Sluice setting: SLUICE_ variables other than SLUICE_REF_* are never expanded`;
  return null;
}

const matches = (name: string, pattern: string): boolean => (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern);

/**
 * Why a reference to `name` is not expanded (a sentence naming the rule and
 * how to allow it), or null when it may be.
 */
export function referenceProblem(name: string, allowed: readonly string[]): string | null {
  if (isSetting(name)) {
    return `\${${name}} names a SLUICE_ setting of the server, which is never expanded: put the secret in a variable named ${REF_PREFIX}<NAME> and refer to that`;
  }
  if (allowed.some((pattern) => matches(name, pattern))) return null;
  return `\${${name}} is not a variable references may name (SLUICE_SECRET_REFS: ${allowed.join(',') || 'none'}): name it ${REF_PREFIX}<NAME>, or add ${name} to SLUICE_SECRET_REFS on the server`;
}

/**
 * Writing a reference (into a connection, a destination, or a test's
 * fields) is for server-wide owners and the server key: anyone else could
 * point an allowed secret at a listener of their own.
 */
// A server-wide capability: the workspace named does not matter.
export const mayWriteReferences = (caller: Caller): boolean => holds(caller, DEFAULT_WORKSPACE, 'secrets.reference');

/** 400 `secret_ref_refused`, the problem also under `errors[field]`. */
export const referenceRefused = (problem: string, field: string): SluiceError =>
  new SluiceError('secret_ref_refused', problem, { errors: { [field]: problem } });

const NOT_PERMITTED = 'Only server-wide owners (and the server key) may write a ${VAR} reference or change where a connection or destination holding one points: send the password itself, or ask an owner of the server';

/**
 * Refuses a request that writes `reference` (a variable name, null when the
 * request writes none) or that redirects an object holding one
 * (`redirects`): 400 `secret_ref_refused`, at `field`.
 */
export function assertReferenceWrite(
  caller: Caller,
  allowed: readonly string[],
  { reference, redirects = false, field = 'password' }: { reference: string | null; redirects?: boolean; field?: string },
): void {
  if ((reference !== null || redirects) && !mayWriteReferences(caller)) throw referenceRefused(NOT_PERMITTED, field);
  const problem = reference === null ? null : referenceProblem(reference, allowed);
  if (problem) throw referenceRefused(problem, field);
}
