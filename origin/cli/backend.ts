import type { BundleSnapshot } from '../services/collections/bundle-file.ts';
import type { ImportOptions, ImportReport } from '../services/collections/bundle-import.ts';
import type { PostmanCollection } from '../services/collections/postman-file.ts';
import type { AppliedKind, ConfigFile, ConfigPlan } from '../services/config/index.ts';
import type { InputFile } from './files.ts';

/**
 * What the commands ask of Sluice, one way whatever answers: the store
 * itself (local.ts, the verbs in this process) or a running origin over
 * HTTP (server.ts, `--server`). Both answer the same documents and throw
 * the same `SluiceError`s, so a command never knows which it talks to.
 */

export interface ConfigSnapshotOptions {
  kinds?: AppliedKind[];
  workspace?: string;
  examples: boolean;
}

export interface Backend {
  /** For progress lines: `the store in ./.sluice`, `http://127.0.0.1:8080`. */
  where: string;
  snapshotBundle(collection: string): Promise<BundleSnapshot>;
  postmanFile(collection: string): Promise<PostmanCollection>;
  importBundle(file: InputFile, options: Omit<ImportOptions, 'workspace'>): Promise<ImportReport>;
  snapshotConfig(options: ConfigSnapshotOptions): Promise<ConfigFile>;
  diffConfig(file: InputFile, options: { prune: boolean }): Promise<ConfigPlan>;
  applyConfig(file: InputFile, options: { prune: boolean; dryRun: boolean }): Promise<ConfigPlan>;
  close(): Promise<void>;
}
