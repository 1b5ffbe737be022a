import { eq } from 'drizzle-orm';
import type { Caller } from '../../access/caller.ts';
import { DEFAULT_WORKSPACE } from '../../access/administration.ts';
import { recordAudit } from '../../audit/record.ts';
import { canonicalJson } from '../../audit/canonical-json.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import { workspaces } from '../../store/schema/index.ts';
import { type Attempt, BatchedCreates } from './batched-creates.ts';
import { type ApplyContext, type Section, recordUpdate } from './context.ts';
import { type ConfigFile, type DescriptionsEntry, type ReadConfigFile, entryPath, fileSha256, sectionEntries } from './file.ts';
import { APPLIED_KINDS, type AppliedKind, KIND_NOUN, byKind } from './kinds.ts';
import { forgetManaged, managedNames, recordManaged } from './managed.ts';
import { type ConfigPlan, countsOf, emptyChanges, hasChanges } from './plan.ts';
import { type ConfigProblem, invalidConfig, problemsOf } from './problems.ts';
import { apiKeysSection } from './sections/api-keys.ts';
import { connectionsSection } from './sections/connections.ts';
import { descriptionsSection } from './sections/descriptions.ts';
import { destinationsSection } from './sections/destinations.ts';
import { exportsSection } from './sections/exports.ts';
import { queriesSection } from './sections/queries.ts';
import { rolesSection } from './sections/roles.ts';
import { givingWay, inApplyTransaction } from './transaction.ts';
import { type TraceSpan, spanned } from '../../observability/tracing/span.ts';

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
  /**
   * What reading the file found (`readConfigFile`): with problems, `file` is
   * the entries whose shape is right; they are planned, never applied, and
   * every problem is thrown at once, the file's first.
   */
  read?: Pick<ReadConfigFile, 'problems' | 'leftOut'>;
  /** The span the `sluice.config.apply` span goes under (the request's); none: it starts a trace (the startup file). */
  parent?: TraceSpan;
}

/** What one entry of a section is: a list's item, or a `descriptions` entry with its connection's name. */
type EntryOf<K extends AppliedKind> = K extends 'descriptions' ? DescriptionsEntry : NonNullable<ConfigFile[K]> extends Array<infer E> ? E : never;

const SECTIONS: { [K in AppliedKind]: Section<EntryOf<K>> } = {
  connections: connectionsSection,
  destinations: destinationsSection,
  queries: queriesSection,
  roles: rolesSection,
  api_keys: apiKeysSection,
  exports: exportsSection,
  descriptions: descriptionsSection,
};

/** The plan of applying `file`, computed by an apply that is rolled back: a diff never disagrees with the apply. */
export async function diffConfig(deps: AppDeps, actor: Caller, file: ConfigFile, options: Omit<ApplyOptions, 'dryRun'> = {}): Promise<ConfigPlan> {
  return applyConfig(deps, actor, file, { ...options, dryRun: true });
}

/**
 * Applies `file` in one store transaction, all or nothing. Every change is
 * made by the verb the Management API uses (new queries by its form for
 * many, a batch at a time: batched-creates.ts), each entry (or batch) in a
 * savepoint of its own so that every problem is found: any problem is 400 `invalid_config`
 * listing them all by their place in the file, and nothing is changed. In
 * order: sections that others name first (connections, destinations,
 * queries, roles, keys, exports), then prune in reverse. A file that changes
 * nothing writes nothing; otherwise one `config_applied` audit entry (the
 * file's SHA-256 and the counts) follows each change's own, all `via: config`.
 */
/** A problem naming an entry left out for its shape (`no connection named "x"` when `x` was malformed): already reported as that entry's own problem. */
function namesLeftOut(problem: ConfigProblem, leftOut: Set<string> | undefined): boolean {
  if (!leftOut || leftOut.size === 0) return false;
  for (const name of leftOut) if (problem.message.includes(JSON.stringify(name))) return true;
  return false;
}

export async function applyConfig(deps: AppDeps, actor: Caller, file: ConfigFile, options: ApplyOptions = {}): Promise<ConfigPlan> {
  const attributes = { 'sluice.config.dry_run': options.dryRun ?? false, 'sluice.config.prune': options.prune ?? false };
  const span = options.parent ? options.parent.child('sluice.config.apply', attributes) : deps.tracing.startRoot('sluice.config.apply', attributes);
  return spanned(span, async () => {
    const plan = await applyInTransaction(deps, actor, file, options);
    span.set({ 'sluice.config.sha256': plan.sha256, 'sluice.config.changed': plan.changed });
    return plan;
  });
}

async function applyInTransaction(deps: AppDeps, actor: Caller, file: ConfigFile, options: ApplyOptions): Promise<ConfigPlan> {
  const workspace = targetWorkspace(file, options.workspace);
  const sha256 = options.sha256 ?? fileSha256(Buffer.from(canonicalJson(file)));
  return inApplyTransaction(deps, async (txDeps, savepoint) => {
    await assertWorkspaceExists(txDeps, workspace);
    const managed = await managedNames(txDeps.store.db, workspace);
    const ctx: ApplyContext = {
      actor,
      workspace,
      sha256,
      changes: emptyChanges(),
      warnings: [],
      managed: byKind((kind) => new Set(managed[kind])),
      prune: options.prune ?? false,
    };
    const problems: ConfigProblem[] = [];
    const attempt: Attempt = async (path, step) => {
      try {
        await savepoint(step);
      } catch (err) {
        if (!(err instanceof SluiceError)) throw err;
        problems.push(...problemsOf(err, path));
      }
    };

    const giveWay = givingWay();
    for (const kind of APPLIED_KINDS) {
      const section = SECTIONS[kind] as Section<{ name: string }>;
      const entries = sectionEntries(file, kind) ?? [];
      // Names are unique per section (file.ts), so no entry changes what another's `known` says.
      const knownOf = (await section.prepare?.(txDeps, ctx, entries)) ?? (() => undefined);
      const creates = new BatchedCreates(section, ctx, savepoint, attempt, problems, giveWay);
      for (const [i, entry] of entries.entries()) {
        const known = knownOf(entry);
        const path = entryPath(kind, i, entry.name);
        if (known === 'unchanged') recordUpdate(ctx, kind, entry.name, {});
        else if (known === 'absent' && section.createAll) await creates.add(entry, path);
        else {
          // The creates before it first: the audit chain lists the changes in the file's order.
          await creates.flush();
          await attempt(path, (d) => section.upsert(d, ctx, entry, path, known));
        }
        await giveWay();
      }
      await creates.flush();
    }
    // A file with problems holds only part of itself: what it lacks is not the file's to prune.
    if (options.prune && !options.read?.problems.length) await prune(file, ctx, managed, attempt, (kind, names) => forgetManaged(txDeps.store.db, kind, names), giveWay);
    const unread = options.read?.problems ?? [];
    if (problems.length > 0 || unread.length > 0) throw invalidConfig([...unread, ...problems.filter((problem) => !namesLeftOut(problem, options.read?.leftOut))]);

    const changed = hasChanges(ctx.changes);
    const plan: ConfigPlan = {
      changes: ctx.changes,
      counts: countsOf(ctx.changes),
      warnings: ctx.warnings,
      sha256,
      workspace,
      changed,
      applied: changed && !options.dryRun,
    };
    if (changed) {
      // Rolled back by a diff or dry run, and nothing the plan says depends on it: thousands of rows not written for nothing.
      if (!options.dryRun) await recordManaged(txDeps.store.db, ctx.changes, workspace, sha256);
      await recordAudit(txDeps.store.db, {
        actor: actor.name,
        action: 'config_applied',
        target: workspace,
        workspace,
        changes: { sha256, workspace, prune: options.prune ?? false, counts: plan.counts },
      });
    }
    return { result: plan, commit: plan.applied };
  });
}

/**
 * Deletes the managed objects of `workspace` the file lacks, in the sections
 * it has, dependants first. One already gone only stops being managed.
 */
async function prune(
  file: ConfigFile,
  ctx: ApplyContext,
  managed: Record<AppliedKind, string[]>,
  attempt: Attempt,
  forget: (kind: AppliedKind, names: string[]) => Promise<void>,
  giveWay: () => Promise<void>,
): Promise<void> {
  for (const kind of [...APPLIED_KINDS].reverse()) {
    const entries = sectionEntries(file, kind);
    if (entries === undefined) continue;
    const named = new Set(entries.map((entry) => entry.name));
    const gone: string[] = [];
    for (const name of managed[kind].filter((n) => !named.has(n))) {
      await attempt(kind, async (d) => {
        try {
          if (await SECTIONS[kind].remove(d, ctx, name)) ctx.changes[kind].delete.push(name);
          else gone.push(name);
        } catch (err) {
          if (err instanceof SluiceError) throw new SluiceError(err.code, `pruning the ${KIND_NOUN[kind]} "${name}": ${err.message}`);
          throw err;
        }
      });
      await giveWay();
    }
    if (gone.length > 0) await forget(kind, gone);
  }
}

/** The call's workspace, which the file's own must match when both are given; else the file's, else `default`. */
function targetWorkspace(file: ConfigFile, called: string | undefined): string {
  if (called !== undefined && file.workspace !== undefined && file.workspace !== called) {
    throw invalidConfig([{ path: 'workspace', message: `the file is for workspace "${file.workspace}" but the call is for "${called}"` }]);
  }
  return called ?? file.workspace ?? DEFAULT_WORKSPACE;
}

async function assertWorkspaceExists(deps: AppDeps, workspace: string): Promise<void> {
  const [row] = await deps.store.db.select({ name: workspaces.name }).from(workspaces).where(eq(workspaces.name, workspace));
  if (!row) throw invalidConfig([{ path: 'workspace', message: `no workspace named "${workspace}"` }]);
}
