import type { ExportedBundle } from '../services/collections/bundle-file.ts';
import type { ImportOptions, ImportReport } from '../services/collections/bundle-import.ts';
import type { PostmanCollection } from '../services/collections/postman-file.ts';
import type { InputFile } from './files.ts';

/**
 * What the commands ask of Sluice, one way whatever answers: the store
 * itself (local.ts, the verbs in this process) or a running origin over
 * HTTP (server.ts, `--server`). Both answer the same documents and throw
 * the same `SluiceError`s, so a command never knows which it talks to.
 */

/** What a config diff or apply reports, per kind: what is (or would be) created, changed field by field, deleted, and newly managed. */
export interface ConfigPlan {
  changes: Record<string, { create: string[]; update: Array<{ name: string; fields: Record<string, { from: unknown; to: unknown } | 'changed'> }>; delete: string[]; manage: string[] }>;
  counts: Record<string, unknown>;
  warnings: Array<{ path: string; message: string }>;
  sha256: string;
  changed: boolean;
  applied: boolean;
}

export interface ConfigExportOptions {
  kinds?: string[];
  workspace?: string;
  examples: boolean;
}

export interface Backend {
  /** For progress lines: `the store in ./.sluice`, `http://127.0.0.1:8080`. */
  where: string;
  exportBundle(collection: string): Promise<ExportedBundle>;
  exportPostman(collection: string): Promise<PostmanCollection>;
  importBundle(file: InputFile, options: Omit<ImportOptions, 'workspace'>): Promise<ImportReport>;
  exportConfig(options: ConfigExportOptions): Promise<unknown>;
  diffConfig(file: InputFile, options: { prune: boolean }): Promise<ConfigPlan>;
  applyConfig(file: InputFile, options: { prune: boolean; dryRun: boolean }): Promise<ConfigPlan>;
  close(): Promise<void>;
}
