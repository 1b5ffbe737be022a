/**
 * Configuration as code: what the Management API's `/api/v1/config`, the
 * startup file (SLUICE_CONFIG_FILE) and the `sluice` command call.
 *
 * - `parseConfigFile(bytes, 'json' | 'yaml')`: (a promise of) the file, or 400 `invalid_config`;
 *   `readConfigFile`: what is right in it and its problems, for `applyConfig`'s `read`
 *   to report every problem at once.
 * - `diffConfig(deps, actor, file, {workspace, prune})`: the plan of an apply
 *   that is rolled back (so a diff and an apply never disagree).
 * - `applyConfig(deps, actor, file, {workspace, prune, dryRun})`: every change
 *   through the API's own verbs in one store transaction, all or nothing.
 * - `snapshotConfig(deps, {kinds, workspace, examples})`: what the server holds,
 *   as a file that applies back to the same state.
 * A refused file is a SluiceError `invalid_config` whose `extras.errors` is
 * the list of `ConfigProblem`s (`describeProblem` prints one on a line).
 */
export { type ConfigFile, CONFIG_FORMAT, CONFIG_FORMAT_VERSION, fileSha256, parseConfigFile, readConfigFile } from './file.ts';
export type { ConfigPlan, ConfigWarning, FieldChange, KindChanges, KindCounts, ObjectUpdate } from './plan.ts';
export { type ConfigProblem, describeProblem } from './problems.ts';
export { configTooLarge } from './limits.ts';
export { APPLIED_KINDS, type AppliedKind, CONFIG_KINDS, type ConfigKind } from './kinds.ts';
export { type ApplyOptions, type ConfigTarget, applyConfig, diffConfig } from './apply.ts';
export { type SnapshotOptions, snapshotConfig } from './snapshot.ts';
