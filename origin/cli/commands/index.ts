import type { Command } from '../command.ts';
import { collectionExport } from './collection-export.ts';
import { collectionImport } from './collection-import.ts';
import { configApply } from './config-apply.ts';
import { configDiff } from './config-diff.ts';
import { configExport } from './config-export.ts';
import { configNewKey } from './config-new-key.ts';

/** Every command, in the order help lists them. */
export const COMMANDS: Command[] = [configExport, configDiff, configApply, configNewKey, collectionExport, collectionImport];
