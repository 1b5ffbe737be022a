import type { Logger } from '../observability/logger.ts';
import type { Store } from '../store/open.ts';
import { chainHead, isKeyed } from './chain.ts';

/** Warns when the chain's newest entry is keyed but SLUICE_AUDIT_KEY is not set: new entries would break verification. */
export async function warnAboutAuditKey(store: Store, key: string | null, logger: Logger): Promise<void> {
  if (key !== null) return;
  const head = await chainHead(store.db);
  if (isKeyed(head.hash)) {
    logger.warn(`The audit chain is keyed (up to seq ${head.seq}) but SLUICE_AUDIT_KEY is not set: entries written now are unkeyed, and verification reports unkeyed_after_keyed`);
  }
}
