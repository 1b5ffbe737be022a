import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import type { ConfigFile } from './file.ts';
import type { ConfigPlan } from './plan.ts';

/** Where a file goes: `workspace` is the one a workspace-scoped call is for (the file's own must then match). */
export interface ConfigTarget {
  workspace?: string;
  /** Delete managed objects the file lacks, in the sections it has. */
  prune?: boolean;
}

export interface ApplyOptions extends ConfigTarget {
  /** Roll back instead of committing: the plan of what would change. */
  dryRun?: boolean;
  /** SHA-256 of the file's bytes as sent (`fileSha256`); default: of the file's JSON. */
  sha256?: string;
}

/** The plan of applying `file`, computed by an apply that is rolled back. */
export async function diffConfig(deps: AppDeps, actor: Caller, file: ConfigFile, options: ConfigTarget & { sha256?: string } = {}): Promise<ConfigPlan> {
  return applyConfig(deps, actor, file, { ...options, dryRun: true });
}

/** Applies `file` in one transaction, all or nothing: any problem is 400 `invalid_config` listing them all. */
export async function applyConfig(_deps: AppDeps, _actor: Caller, _file: ConfigFile, _options: ApplyOptions = {}): Promise<ConfigPlan> {
  throw new Error('applyConfig: not implemented yet');
}
