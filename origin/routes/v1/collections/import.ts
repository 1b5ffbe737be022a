import { z } from 'zod';
import { readDocument, validate } from '../../../http/body.ts';
import { ON_CONFLICT, bundleFile, parseBundleText } from '../../../services/collections/bundle-file.ts';
import { importBundle } from '../../../services/collections/bundle-import.ts';
import { queryParam } from '../../../services/discovery/operations.ts';
import { defineRoute } from '../contract.ts';

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
 * `queries.write` besides `collections.write`. It names no collection in its
 * path: it refuses a locked managed query itself.
 */
export const importRoute = defineRoute({
  method: 'post',
  path: '/import',
  id: 'importCollectionBundle',
  summary: 'Import a collection bundle (JSON, or YAML as application/yaml), all or nothing; saves are audited save_query with source: import',
  access: ['collections.write', 'queries.write'],
  document: bundleFile,
  parameters: [
    queryParam('dry_run', { type: 'boolean' }, 'Only report what would be done'),
    queryParam('on_conflict', { type: 'string', enum: [...ON_CONFLICT] }, 'An existing query of the same name: fail (default), skip it, or add a new version (never moving it from another collection)'),
    queryParam('collection', { type: 'string' }, "File the queries in this collection instead of the bundle's own"),
  ],
  handler: async (c) => {
    const caller = c.get('caller');
    const args = validate(importArguments, c.req.query());
    const document = await readDocument(c, parseBundleText);
    const report = await importBundle(c.get('deps'), caller, document, {
      dryRun: args.dry_run === 'true',
      onConflict: args.on_conflict,
      collection: args.collection,
      workspace: c.get('workspace'),
    });
    return c.json(report);
  },
});
