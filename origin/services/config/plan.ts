import { APPLIED_KINDS, type AppliedKind, byKind } from './kinds.ts';

/**
 * What applying a file does (or did), per kind: objects created, changed
 * field by field, deleted (prune), and existing ones the file names that
 * become managed without a change. A secret's change is shown as the word
 * `changed`, never a value.
 */

export type FieldChange = { from: unknown; to: unknown } | 'changed';

export interface ObjectUpdate {
  name: string;
  fields: Record<string, FieldChange>;
}

export interface KindChanges {
  create: string[];
  update: ObjectUpdate[];
  delete: string[];
  /** Named by the file, already as it says, and not managed until now. */
  manage: string[];
}

export type KindCounts = Record<keyof KindChanges, number>;

/** Something the file will do that its author may not expect; it does not stop the apply. */
export interface ConfigWarning {
  path: string;
  message: string;
}

export interface ConfigPlan {
  /** Every kind the file's sections apply, each with its four lists (empty when nothing). */
  changes: Record<AppliedKind, KindChanges>;
  counts: Record<AppliedKind, KindCounts>;
  warnings: ConfigWarning[];
  /** SHA-256 of the file's bytes as sent. */
  sha256: string;
  /** The workspace the file was applied (or diffed) to. */
  workspace: string;
  /** True when applying would change something (or did): any create, update, delete or manage. */
  changed: boolean;
  /** True when the changes were committed; false for a diff or a dry run. */
  applied: boolean;
}

export const emptyChanges = (): Record<AppliedKind, KindChanges> => byKind(() => ({ create: [], update: [], delete: [], manage: [] }));

export function countsOf(changes: Record<AppliedKind, KindChanges>): Record<AppliedKind, KindCounts> {
  return byKind((kind) => {
    const c = changes[kind];
    return { create: c.create.length, update: c.update.length, delete: c.delete.length, manage: c.manage.length };
  });
}

export const hasChanges = (changes: Record<AppliedKind, KindChanges>): boolean =>
  APPLIED_KINDS.some((kind) => {
    const c = changes[kind];
    return c.create.length + c.update.length + c.delete.length + c.manage.length > 0;
  });
