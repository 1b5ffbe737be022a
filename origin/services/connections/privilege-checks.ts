import type { AnyDriver } from '../../drivers/types.ts';
import type { Logger } from '../../observability/logger.ts';
import type { ConnectionRow } from '../../store/schema/index.ts';
import { privilegeWarnings } from './privileges.ts';
import { connectionEtag } from './view.ts';

/** How long a check that could not reach the database is not tried again: a down database is not asked per request. */
const RETRY_AFTER_MS = 30_000;

interface Entry {
  /** The connection's settings version (its ETag): an edited connection is asked again. */
  version: string;
  pending: Promise<string[]>;
  warnings: string[] | null;
  failedAt: number | null;
}

/** What a response shows of a connection's check: `warnings` empty until `privileges_checked`. */
export interface PrivilegeView {
  warnings: string[];
  privileges_checked: boolean;
}

/**
 * The answer of `privilegeWarnings` per saved connection and settings
 * version, in process memory: asked on create, update, test and first use,
 * never per request. The first answer with warnings for a version is logged,
 * one line.
 */
export class PrivilegeChecks {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly logger: Pick<Logger, 'warn'>) {}

  /** What is known now, asking nothing. */
  view(row: Pick<ConnectionRow, 'name' | 'id' | 'revision'>): PrivilegeView {
    const entry = this.entries.get(row.name);
    const warnings = entry?.version === connectionEtag(row) ? entry.warnings : null;
    return { warnings: warnings ?? [], privileges_checked: warnings !== null };
  }

  /**
   * The warnings of the connection's version: known, being asked, or asked
   * now through `driver`. Rejects when the database could not be reached
   * (and for a while after, without asking again).
   */
  check(row: Pick<ConnectionRow, 'name' | 'id' | 'revision'>, driver: () => AnyDriver): Promise<string[]> {
    const version = connectionEtag(row);
    const entry = this.entries.get(row.name);
    if (entry?.version === version && (entry.failedAt === null || Date.now() - entry.failedAt < RETRY_AFTER_MS)) return entry.pending;
    return this.ask(row.name, version, async () => privilegeWarnings(driver()));
  }

  /** A test of the saved connection answered: that is the version's answer. */
  record(row: Pick<ConnectionRow, 'name' | 'id' | 'revision'>, warnings: string[]): void {
    void this.ask(row.name, connectionEtag(row), () => Promise.resolve(warnings)).catch(() => {});
  }

  forget(name: string): void {
    this.entries.delete(name);
  }

  /** Versions whose warnings were logged: a recheck of the same version logs nothing. */
  private readonly logged = new Set<string>();

  private ask(name: string, version: string, asking: () => Promise<string[]>): Promise<string[]> {
    const entry: Entry = { version, pending: Promise.resolve([]), warnings: null, failedAt: null };
    entry.pending = asking().then(
      (warnings) => {
        entry.warnings = warnings;
        const key = `${name}\u0000${version}`;
        if (warnings.length > 0 && !this.logged.has(key)) {
          this.logged.add(key);
          this.logger.warn({ connection: name }, `connection "${name}": its database user may do more than its queries need: ${warnings.join(' | ')}`);
        }
        return warnings;
      },
      (error: unknown) => {
        entry.failedAt = Date.now();
        throw error;
      },
    );
    this.entries.set(name, entry);
    return entry.pending;
  }
}
