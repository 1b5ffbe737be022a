#!/usr/bin/env node
// The `sluice` command (package.json `bin`). It runs the TypeScript source
// through tsx's loader in this same process, so `npx sluice` works right
// after `npm install` with no build step, and the exit code and signals are
// the command's own.
import { register } from 'tsx/esm/api';

register();
await import('../origin/cli/main.ts');
