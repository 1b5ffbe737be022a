import { asc, gt } from 'drizzle-orm';
import { SluiceError } from '../errors.ts';
import type { StoreDb } from '../store/open.ts';
import { auditLog } from '../store/schema/index.ts';
import { formatDate } from '../time.ts';
import { canonicalEntry, entryHash, isKeyed, readAnchor } from './chain.ts';

/** Why the walk stopped; each is defined in docs/decisions/0011-audit-chain.md. */
export type ChainProblem = 'changed' | 'changed_before' | 'missing' | 'out_of_order' | 'unkeyed_after_keyed';

export interface IntactChain {
  intact: true;
  /** Oldest and newest entries walked; null for an empty chain. */
  first_seq: number | null;
  last_seq: number | null;
  /** The newest entry is HMAC-keyed (so, the chain being intact, every entry from `keyed_from_seq` on). */
  keyed: boolean;
  keyed_from_seq: number | null;
  entries: number;
  /** The seq the walk started after: 0, or the newest entry retention removed. */
  anchor_seq: number;
}

export interface BrokenChain {
  intact: false;
  break: {
    seq: number;
    action: string;
    timestamp: string;
    problem: ChainProblem;
    /** `missing`: the first seq not found (the entries from it up to `seq` - 1 are gone). */
    expected_seq?: number;
  };
}

type Row = typeof auditLog.$inferSelect;

const PAGE = 1000;
/** How far from its place an entry is looked for when its hash fails, to tell a moved entry from an altered one. */
const MOVE_SEARCH = 64;

/**
 * Walks the chain from its anchor in one snapshot of the store, in seq
 * order, and stops at the first entry that does not verify. Keyed entries
 * need the key: without it the answer is 409 `audit_key_required`.
 */
export async function verifyChain(db: StoreDb, key: string | null): Promise<IntactChain | BrokenChain> {
  return db.transaction(
    async (tx) => {
      const anchor = await readAnchor(tx);
      let prev = { seq: anchor.seq, hash: anchor.hash };
      const anchorKeyed = isKeyed(anchor.hash);
      let keyedFrom: number | null = null;
      let first: number | null = null;
      let entries = 0;
      for (;;) {
        const rows = await tx.select().from(auditLog).where(gt(auditLog.seq, prev.seq)).orderBy(asc(auditLog.seq)).limit(PAGE);
        for (const row of rows) {
          const problem = check(row, prev, anchorKeyed || keyedFrom !== null, key);
          if (problem) {
            const broken: BrokenChain['break'] = { seq: row.seq, action: row.action, timestamp: formatDate(row.timestamp), problem };
            if (problem === 'missing') broken.expected_seq = prev.seq + 1;
            return { intact: false, break: broken } satisfies BrokenChain;
          }
          if (keyedFrom === null && isKeyed(row.hash)) keyedFrom = row.seq;
          first ??= row.seq;
          entries++;
          prev = row;
        }
        if (rows.length < PAGE) break;
      }
      return {
        intact: true,
        first_seq: first,
        last_seq: entries > 0 ? prev.seq : null,
        keyed: isKeyed(prev.hash),
        keyed_from_seq: keyedFrom,
        entries,
        anchor_seq: anchor.seq,
      } satisfies IntactChain;
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

/** The problem with `row` following `prev`, in the order the ADR gives; null when it verifies. */
function check(row: Row, prev: { seq: number; hash: string }, afterKeyed: boolean, key: string | null): ChainProblem | null {
  if (row.seq !== prev.seq + 1) return 'missing';
  const keyed = isKeyed(row.hash);
  if (keyed && key === null) {
    throw new SluiceError('audit_key_required', `Audit entry ${row.seq} is keyed (HMAC-SHA-256): set SLUICE_AUDIT_KEY to the key it was written with to verify the chain`);
  }
  const hashAt = (seq: number) => entryHash(row.prevHash, canonicalEntry({ ...row, seq }), keyed ? key : null);
  if (hashAt(row.seq) !== row.hash) {
    for (let distance = 1; distance <= MOVE_SEARCH; distance++) {
      for (const seq of [row.seq - distance, row.seq + distance]) {
        if (seq > 0 && hashAt(seq) === row.hash) return 'out_of_order';
      }
    }
    return 'changed';
  }
  if (!keyed && afterKeyed) return 'unkeyed_after_keyed';
  if (row.prevHash !== prev.hash) return 'changed_before';
  return null;
}
