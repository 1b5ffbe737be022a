import { readFile } from 'node:fs/promises';
import { eq, sql } from 'drizzle-orm';
import type { Caller } from '../../access/caller.ts';
import type { AppDeps } from '../../deps.ts';
import { SluiceError } from '../../errors.ts';
import { storeInTransaction } from '../../store/open.ts';
import { configApplications } from '../../store/schema/index.ts';
import { applyConfig } from './apply.ts';
import { fileSha256, readConfigFile } from './file.ts';
import type { ConfigPlan } from './plan.ts';
import { type ConfigProblem, describeProblem } from './problems.ts';
import type { Logger } from '../../observability/logger.ts';

/** Who the audit log names for changes the startup file made. */
export const STARTUP_ACTOR: Caller = { name: 'SLUICE_CONFIG_FILE', admin: true, via: 'break-glass' };

/** Any fixed number: origins starting together on one store apply a file one after another, so once. */
const STARTUP_LOCK = 7_311_021;

/** Why the startup file cannot be applied, with every problem. */
export class StartupConfigError extends Error {
  constructor(message: string, readonly problems: ConfigProblem[] = []) {
    super(message);
    this.name = 'StartupConfigError';
  }

  /** One block of fatal lines: what and then each problem on a line of its own (a log line never holds a line break). */
  report(logger: Logger): void {
    logger.fatal(this.problems.length > 0 ? `${this.message} (${this.problems.length === 1 ? '1 problem' : `${this.problems.length} problems`})` : this.message);
    for (const problem of this.problems) logger.fatal(describeProblem(problem));
  }
}

export type StartupOutcome = { applied: true; sha256: string; plan: ConfigPlan } | { applied: false; sha256: string };

/**
 * Applies SLUICE_CONFIG_FILE once per SHA-256 of its bytes: under a lock
 * every origin on the store takes, a hash already in `config_applications`
 * is skipped, and one applied is recorded there in the same transaction (a
 * file that changed nothing too, so a later start leaves what the API
 * changed since alone). A file that cannot be read or applied throws
 * StartupConfigError naming every problem; nothing was changed.
 */
export async function applyStartupFile(deps: AppDeps, path: string, { prune }: { prune: boolean }): Promise<StartupOutcome> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new StartupConfigError(`SLUICE_CONFIG_FILE ${path} cannot be read: ${(err as Error).message}`);
  }
  const sha256 = fileSha256(bytes);
  const failed = `SLUICE_CONFIG_FILE ${path} (sha256 ${sha256}) cannot be applied; nothing was changed:`;
  try {
    const read = await readConfigFile(bytes, /\.json$/i.test(path) ? 'json' : 'yaml');
    return await deps.store.db.transaction(async (tx): Promise<StartupOutcome> => {
      await tx.execute(sql`select pg_advisory_xact_lock(${STARTUP_LOCK})`);
      const [done] = await tx.select({ sha256: configApplications.sha256 }).from(configApplications).where(eq(configApplications.sha256, sha256));
      if (done) return { applied: false, sha256 };
      const plan = await applyConfig({ ...deps, store: storeInTransaction(deps.store, tx) }, STARTUP_ACTOR, read.file, { prune, sha256, read });
      await tx.insert(configApplications).values({ sha256, actor: STARTUP_ACTOR.name, counts: plan.counts });
      return { applied: true, sha256, plan };
    }).then((outcome) => {
      report(deps, path, outcome);
      return outcome;
    });
  } catch (err) {
    if (!(err instanceof SluiceError)) throw err;
    const problems = err.code === 'invalid_config' ? (err.extras.errors as ConfigProblem[]) : [{ path: '', message: err.message }];
    throw new StartupConfigError(failed, problems);
  }
}

function report(deps: AppDeps, path: string, outcome: StartupOutcome): void {
  if (!outcome.applied) {
    deps.logger.info({ file: path, sha256: outcome.sha256 }, 'configuration file already applied to this store; left as it is');
    return;
  }
  for (const warning of outcome.plan.warnings) deps.logger.warn({ file: path, path: warning.path }, `configuration file: ${warning.message}`);
  const counts = Object.fromEntries(Object.entries(outcome.plan.counts).filter(([, c]) => c.create + c.update + c.delete + c.manage > 0));
  deps.logger.info({ file: path, sha256: outcome.sha256, counts }, outcome.plan.changed ? 'configuration file applied' : 'configuration file applied: nothing to change');
}
