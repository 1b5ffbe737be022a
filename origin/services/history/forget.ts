import { createHash } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { recordAudit } from '../../audit/record.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import type { StoreDb } from '../../store/open.ts';
import { rowsOf } from '../../store/raw-rows.ts';
import { runs, usageCounters } from '../../store/schema/index.ts';

export interface ForgetResult {
  /** SHA-256 (hex) of the caller's name: what the audit entry names, never the name. */
  caller_sha256: string;
  dry_run: boolean;
  /** Their runs in history; each is also an event `/events` could replay, so `events` is the same number. */
  runs: number;
  events: number;
  /** Their usage_counters rows (one per day and per month they were counted in). */
  usage_counters: number;
}

export const callerHash = (name: string) => createHash('sha256').update(name).digest('hex');

/**
 * Forgets a caller (the `forget_caller` change): deletes every run recorded
 * under their name (which are also the events `/events` replays) and their
 * usage counts, in one transaction with its audit entry. The entry's target
 * is the SHA-256 of the name and its changes are counts only: the entry
 * does not hold the name it was asked to forget. A dry run counts and
 * changes nothing (and is not audited). Runs and usage counts still queued
 * in memory are written first, so the counts are complete and none of
 * theirs lands after the delete.
 */
export async function forgetCaller(
  deps: Pick<AppDeps, 'store' | 'history' | 'callerUsage'>,
  actor: Caller,
  input: { caller: string; dryRun: boolean },
): Promise<ForgetResult> {
  const target = callerHash(input.caller);
  await Promise.all([deps.history.flush(), deps.callerUsage.flush()]);
  if (input.dryRun) {
    const counts = await countOf(deps.store.db, input.caller);
    return { caller_sha256: target, dry_run: true, runs: counts.runs, events: counts.runs, usage_counters: counts.usage };
  }
  const result = await deps.store.db.transaction(async (tx) => {
    const runCount = await deletedCount(tx, sql`delete from ${runs} where ${runs.keyName} = ${input.caller} returning 1`);
    const usage = await deletedCount(tx, sql`delete from ${usageCounters} where ${usageCounters.caller} = ${input.caller} returning 1`);
    await recordAudit(tx, { actor: actor.name, action: 'forget_caller', target, workspace: null, changes: { runs: runCount, usage_counters: usage } });
    return { caller_sha256: target, dry_run: false, runs: runCount, events: runCount, usage_counters: usage };
  });
  deps.callerUsage.forget(input.caller);
  return result;
}

async function countOf(db: StoreDb, caller: string): Promise<{ runs: number; usage: number }> {
  const [runCount, usage] = await Promise.all([db.$count(runs, eq(runs.keyName, caller)), db.$count(usageCounters, eq(usageCounters.caller, caller))]);
  return { runs: runCount, usage };
}

async function deletedCount(tx: StoreDb, statement: ReturnType<typeof sql>): Promise<number> {
  const result = await tx.execute(sql`with gone as (${statement}) select count(*)::int as n from gone`);
  return Number(rowsOf<{ n: number }>(result)[0].n);
}
