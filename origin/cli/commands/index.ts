import type { Command } from '../command.ts';
import { collectionSnapshot } from './collection-snapshot.ts';
import { collectionImport } from './collection-import.ts';
import { configApply } from './config-apply.ts';
import { configDiff } from './config-diff.ts';
import { configSnapshot } from './config-snapshot.ts';
import { configNewKey } from './config-new-key.ts';

/** Every command, in the order help lists them. */
export const COMMANDS: Command[] = [configSnapshot, configDiff, configApply, configNewKey, collectionSnapshot, collectionImport];
