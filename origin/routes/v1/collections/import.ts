import type { Hono } from 'hono';
import { z } from 'zod';
import { readDocument, validate } from '../../../http/body.ts';
import type { AppEnv } from '../../../http/context.ts';
import { ON_CONFLICT, parseBundleText } from '../../../services/collections/bundle-file.ts';
import { importBundle } from '../../../services/collections/bundle-import.ts';
import { assertCapability } from '../require-capability.ts';

/** The import's query-string arguments. */
export const importArguments = z.strictObject({
  dry_run: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
  on_conflict: z.enum(ON_CONFLICT, { error: `must be ${ON_CONFLICT.join(', ')}` }).optional(),
  collection: z.string().optional(),
});

/**
 * POST /api/v1/collections/import[?dry_run=true&on_conflict=fail|skip|new-version&collection=NAME]:
 * a collection bundle as the body (JSON, or YAML with `Content-Type:
 * application/yaml`). Answers what was (or, dry, would be) created, given a
 * new version, skipped or left unchanged, and the warnings; 400 listing
 * every problem by its path in the file, 409 `query_exists` for conflicts
 * alone; nothing is written then. It saves queries, so it needs
 * `queries.write` besides the router's `collections.write`.
 */
export function registerImport(api: Hono<AppEnv>): void {
  api.post('/import', async (c) => {
    const caller = c.get('caller');
    const workspace = c.get('workspace');
    assertCapability(caller, workspace, 'queries.write');
    const args = validate(importArguments, c.req.query());
    const document = await readDocument(c, parseBundleText);
    const report = await importBundle(c.get('deps'), caller, document, {
      dryRun: args.dry_run === 'true',
      onConflict: args.on_conflict,
      collection: args.collection,
      workspace,
    });
    return c.json(report);
  });
}
