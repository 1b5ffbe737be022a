import type { AppDeps } from '../../deps.ts';
import type { ConfigFile } from './file.ts';
import type { AppliedKind } from './kinds.ts';

export interface ExportOptions {
  /** Sections to write; default every kind. */
  kinds?: AppliedKind[];
  /** The workspace whose objects are written; default `default`. */
  workspace?: string;
  /** Include the bundled examples' connections and queries; default false. */
  examples?: boolean;
}

/**
 * What the server holds as a configuration file that applies back to the
 * same state. Passwords stay `${VAR}` references; a literal or encrypted one
 * is written as a `${SLUICE_PW_<NAME>}` placeholder (applying the file then
 * warns while that variable is unset). Keys carry their `secret_sha256`.
 */
export async function exportConfig(_deps: AppDeps, _options: ExportOptions = {}): Promise<ConfigFile> {
  throw new Error('exportConfig: not implemented yet');
}
