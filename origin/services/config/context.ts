import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import { ENV_REFERENCE } from '../../secrets/passwords.ts';
import { type AppliedKind, KIND_NOUN } from './kinds.ts';
import type { ConfigWarning, FieldChange, KindChanges } from './plan.ts';
import type { ConfigProblem } from './problems.ts';

/** What `Section.prepare` found of an entry's object, before the section's first change. */
export type Known = 'unchanged' | 'absent';

/** What every section's steps share during one apply. */
export interface ApplyContext {
  actor: Caller;
  /** The workspace the file applies to: objects are made there, and must be there to be changed. */
  workspace: string;
  sha256: string;
  changes: Record<AppliedKind, KindChanges>;
  warnings: ConfigWarning[];
  /** Names managed when the apply began, per kind. */
  managed: Record<AppliedKind, ReadonlySet<string>>;
  /** The apply prunes: a section may also delete what its entries lack (a connection's unlisted descriptions). */
  prune: boolean;
}

/**
 * One section of the file: making or changing the object an entry describes
 * (`path` is the entry's place in the file, for warnings) and deleting one
 * prune removes. Each runs in a savepoint of its own, through the verbs the
 * API uses; a refusal is thrown and becomes the entry's problems.
 */
export interface Section<E> {
  kind: AppliedKind;
  /**
   * Reads up front, in a few statements for the whole section, what its
   * entries are compared with: an entry found `unchanged` is recorded as
   * such (`recordUpdate` with no fields) without a savepoint or a verb; one
   * found `absent` is created without looking it up again. Anything else
   * (undefined) goes through `upsert` as it is.
   */
  prepare?(deps: AppDeps, ctx: ApplyContext, entries: E[]): Promise<(entry: E) => Known | undefined>;
  upsert(deps: AppDeps, ctx: ApplyContext, entry: E, path: string, known?: Known): Promise<void>;
  /**
   * Makes entries found `absent` together, in a few statements for them all
   * (`between` runs between the entries' checks): the problems of those
   * refused, each at its path; the others are recorded as created. Without
   * it, each goes through `upsert` in a savepoint of its own.
   */
  createAll?(deps: AppDeps, ctx: ApplyContext, batch: Array<{ entry: E; path: string }>, between: () => Promise<void>): Promise<ConfigProblem[]>;
  /** Deletes `name`; false when it no longer exists. */
  remove(deps: AppDeps, ctx: ApplyContext, name: string): Promise<boolean>;
}

export function recordCreate(ctx: ApplyContext, kind: AppliedKind, name: string): void {
  ctx.changes[kind].create.push(name);
}

/** A change when `fields` has any; otherwise the object becomes managed if it was not. */
export function recordUpdate(ctx: ApplyContext, kind: AppliedKind, name: string, fields: Record<string, FieldChange>): void {
  if (Object.keys(fields).length > 0) ctx.changes[kind].update.push({ name, fields });
  else if (!ctx.managed[kind].has(name)) ctx.changes[kind].manage.push(name);
}

/**
 * Names are unique per kind across workspaces: an object the file names may
 * only be changed in the workspace the file applies to. The workspace it is
 * in is not named (nor whether it exists there), as the API's own lookups.
 */
export function assertInWorkspace(ctx: ApplyContext, kind: AppliedKind, name: string, workspace: string): void {
  if (workspace === ctx.workspace) return;
  throw new SluiceError('invalid_request', `the name "${name}" is taken by a ${KIND_NOUN[kind]} outside workspace "${ctx.workspace}": choose another name`);
}

/** A password change as the plan shows it: `${VAR}` references are no secret, anything else is only `changed`. */
export function passwordChange(before: string | null, after: string | null): FieldChange {
  const shown = (value: string | null) => value === null || ENV_REFERENCE.test(value);
  return shown(before) && shown(after) ? { from: before, to: after } : 'changed';
}

/** A warning for a `${VAR}` password whose variable this process does not have: the object fails on use until it is set. */
export function warnUnsetReference(ctx: ApplyContext, path: string, password: string | null | undefined): void {
  const variable = password ? ENV_REFERENCE.exec(password)?.[1] : undefined;
  if (variable === undefined || process.env[variable] !== undefined) return;
  ctx.warnings.push({ path: `${path}.password`, message: `\${${variable}} is not set in the server's environment: using this object fails until it is` });
}
