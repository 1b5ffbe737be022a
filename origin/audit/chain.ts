import { createHash, createHmac } from 'node:crypto';
import { desc } from 'drizzle-orm';
import type { StoreDb } from '../store/open.ts';
import { auditAnchor, auditLog } from '../store/schema/index.ts';
import { canonicalJson } from './canonical-json.ts';

/**
 * The hash chain's arithmetic, shared by the writer (record.ts) and the
 * verifier (verify.ts). See docs/decisions/0011-audit-chain.md.
 *
 * An entry's hash covers the previous entry's stored hash (text, prefix
 * included) and the entry's canonical JSON: `{seq, timestamp, actor, action,
 * target, changes}` with keys sorted at every depth and the timestamp in UTC
 * ISO 8601 with milliseconds. Plain entries store SHA-256 lower-case hex;
 * entries written with SLUICE_AUDIT_KEY store `hmac-sha256:` + HMAC-SHA-256 hex,
 * so whether an entry is keyed is read off its hash and needs no column.
 */

export const KEYED_PREFIX = 'hmac-sha256:';

export interface ChainedFields {
  seq: number;
  timestamp: Date;
  actor: string;
  action: string;
  target: string;
  changes: Record<string, unknown>;
}

export const isKeyed = (hash: string): boolean => hash.startsWith(KEYED_PREFIX);

export function canonicalEntry(entry: ChainedFields): string {
  const { seq, timestamp, actor, action, target, changes } = entry;
  return canonicalJson({ seq, timestamp: timestamp.toISOString(), actor, action, target, changes });
}

/** The hash of an entry chained after `prevHash`: keyed when `key` is given. */
export function entryHash(prevHash: string, canonical: string, key: string | null): string {
  if (key === null) return createHash('sha256').update(prevHash).update(canonical).digest('hex');
  return KEYED_PREFIX + createHmac('sha256', key).update(prevHash).update(canonical).digest('hex');
}

/** Where the chain starts: the newest entry retention removed, or seq 0 with the empty hash. */
export interface Anchor {
  seq: number;
  hash: string;
}

export async function readAnchor(db: StoreDb): Promise<Anchor> {
  const [row] = await db.select({ seq: auditAnchor.seq, hash: auditAnchor.hash }).from(auditAnchor).limit(1);
  return row ?? { seq: 0, hash: '' };
}

/** The entry the next one chains onto: the newest stored, else the anchor. */
export async function chainHead(db: StoreDb): Promise<Anchor> {
  const [last] = await db.select({ seq: auditLog.seq, hash: auditLog.hash }).from(auditLog).orderBy(desc(auditLog.seq)).limit(1);
  return last ?? readAnchor(db);
}
