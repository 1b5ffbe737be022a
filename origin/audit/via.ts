import { sql } from 'drizzle-orm';
import type { StoreDb } from '../store/open.ts';

/**
 * How a change was made when not through its own API call: `config` for a
 * configuration apply, `examples` for the examples' install and removal. Set once on the apply's transaction (a setting local
 * to it), every audit entry recorded inside carries it as `via` in its
 * changes, so the verbs the apply runs need no parameter for it.
 */
export type AuditVia = 'config' | 'examples';

export const AUDIT_VIA_SETTING = 'sluice.audit_via';

export async function setAuditVia(tx: Pick<StoreDb, 'execute'>, via: AuditVia): Promise<void> {
  await tx.execute(sql`select set_config(${AUDIT_VIA_SETTING}, ${via}, true)`);
}
