import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { badRequest } from '../../errors.ts';
import { problemPath } from '../config/problems.ts';
import { createFields } from '../queries/fields.ts';

/**
 * The collection bundle (`format: sluice-bundle`, `format_version: 1`): the
 * newest version of each query of one collection, with what running it
 * needs (SQL, description, tags, parameters, default connection name,
 * `cache_ttl`) and nothing else: no history, keys, roles or connection
 * details. An entry takes the saved-query API's own fields, so its checks
 * are the API's (definition.ts); an unknown field is refused.
 */

export const BUNDLE_FORMAT = 'sluice-bundle';
export const BUNDLE_VERSION = 1;

/** What an import does with an entry whose name a query already has. */
export const ON_CONFLICT = ['fail', 'skip', 'new-version'] as const;
export type OnConflict = (typeof ON_CONFLICT)[number];

export const bundleEntry = createFields.pick({
  name: true,
  sql: true,
  description: true,
  tags: true,
  parameters: true,
  connection_name: true,
  cache_ttl: true,
});
export type BundleEntry = z.infer<typeof bundleEntry>;

export const bundleFile = z.strictObject({
  format: z.literal(BUNDLE_FORMAT, { error: `must be "${BUNDLE_FORMAT}"` }),
  format_version: z.literal(BUNDLE_VERSION, { error: `must be ${BUNDLE_VERSION}: this server reads format_version ${BUNDLE_VERSION}` }),
  /** The collection the queries were written from; an import may file them elsewhere. */
  collection: z.string().nullable().optional(),
  queries: z.array(bundleEntry),
});
export type BundleFile = z.infer<typeof bundleFile>;

/** As a bundle is written: every field present, `null` where it has no value. */
export interface BundleSnapshotEntry {
  name: string;
  sql: string;
  description: string | null;
  tags: string[];
  parameters: Record<string, unknown>;
  connection_name: string | null;
  cache_ttl: number | null;
}

export interface BundleSnapshot {
  format: typeof BUNDLE_FORMAT;
  format_version: typeof BUNDLE_VERSION;
  collection: string;
  queries: BundleSnapshotEntry[];
}

const TOP_FIELDS = `a bundle holds ${Object.keys(bundleFile.shape).join(', ')}`;
const ENTRY_FIELDS = `an entry holds ${Object.keys(bundleEntry.shape).join(', ')}`;

/** The top level alone: each entry is read on its own, so one bad entry hides no other problem. */
const bundleOutline = bundleFile.extend({ queries: z.array(z.unknown()) });

/** A bundle as read: its well-formed entries, each at its index in the file, and every problem of its shape by path. */
export interface ReadBundle {
  collection: string | null;
  entries: Array<{ at: string; entry: BundleEntry }>;
  problems: Record<string, string>;
}

/**
 * A bundle from its parsed document: what its shape allows to be read, and
 * every shape problem mapped to its path in the file (`queries[2].colour:
 * unknown field`). The import adds the entries' own problems to these and
 * reports them all at once.
 */
export function readBundle(document: unknown): ReadBundle {
  const problems: Record<string, string> = {};
  const outline = bundleOutline.safeParse(document);
  if (!outline.success) {
    addIssues(problems, outline.error.issues, []);
    const queries = (document as { queries?: unknown } | null)?.queries;
    const collection = (document as { collection?: unknown } | null)?.collection;
    return { collection: typeof collection === 'string' ? collection : null, entries: readEntries(Array.isArray(queries) ? queries : [], problems), problems };
  }
  return { collection: outline.data.collection ?? null, entries: readEntries(outline.data.queries, problems), problems };
}

function readEntries(queries: unknown[], problems: Record<string, string>): ReadBundle['entries'] {
  const entries: ReadBundle['entries'] = [];
  for (const [i, query] of queries.entries()) {
    const read = bundleEntry.safeParse(query);
    if (read.success) entries.push({ at: `queries[${i}]`, entry: read.data });
    else addIssues(problems, read.error.issues, ['queries', i]);
  }
  return entries;
}

function addIssues(problems: Record<string, string>, issues: z.ZodError['issues'], under: PropertyKey[]): void {
  for (const issue of issues) {
    const path = [...under, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      const known = path.length === 0 ? TOP_FIELDS : ENTRY_FIELDS;
      for (const key of issue.keys) problems[problemPath([...path, key])] ??= `unknown field (${known})`;
    } else {
      problems[problemPath(path) || 'bundle'] ??= issue.message;
    }
  }
}

/** The document of a bundle's text, JSON or YAML (JSON is YAML too, but its own parser names positions better). */
export function parseBundleText(text: string, syntax: 'json' | 'yaml'): unknown {
  try {
    return syntax === 'json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw badRequest(`The bundle is not valid ${syntax.toUpperCase()}: ${(err as Error).message}`);
  }
}
