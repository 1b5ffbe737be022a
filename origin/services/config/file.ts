import { createHash } from 'node:crypto';
import { z } from 'zod';
import { DEPTH_PROBLEM } from '../../../shared/json-depth.ts';
import { NUL_PROBLEM } from '../../../shared/nul.ts';
import { parseMongoUri } from '../../drivers/mongodb/client.ts';
import { ENV_REFERENCE } from '../../secrets/passwords.ts';
import * as connection from '../connections/fields.ts';
import { urlPasswordForm } from '../connections/jdbc-url.ts';
import * as destination from '../destinations/fields.ts';
import { descriptionItem } from '../descriptions/fields.ts';
import * as exportFields from '../exports/fields.ts';
import * as key from '../keys/fields.ts';
import * as query from '../queries/fields.ts';
import * as role from '../roles/fields.ts';
import { type SlicedSections, nestsTooDeep, nulPathsOf, parseInSlices } from './file-shape.ts';
import { assertObjectCount } from './limits.ts';
import { type ConfigProblem, invalidConfig, problemPath } from './problems.ts';
import { readYaml } from './read-yaml.ts';

/**
 * The configuration file (`format: sluice-config`, `format_version: 1`): each
 * section a list of objects taking the Management API's own create fields,
 * from the resources' own schemas, extended where the file differs:
 * passwords only as `${VAR}` references, a key's `secret_sha256`, queries
 * always published. What depends on the store (names of other objects,
 * definitions) is checked by apply, through the verbs.
 */

export const CONFIG_FORMAT = 'sluice-config';
export const CONFIG_FORMAT_VERSION = 1;

const passwordReference = z
  .string()
  .regex(ENV_REFERENCE, 'must be a ${VAR} reference (the value is read from the server environment): a literal password is never written in a configuration file')
  .nullable()
  .optional();

/**
 * A mongodb `options.uri` may carry the password in place of `password`
 * (the API moves it there on save): in a file it is a `${VAR}` reference too.
 * A JDBC URL may carry none (connections/jdbc-url.ts).
 */
const connectionEntry = connection.createFields.extend({ password: passwordReference }).superRefine((entry, ctx) => {
  const form = urlPasswordForm(entry.options?.jdbc_url);
  if (form !== null) {
    ctx.addIssue({
      code: 'custom',
      path: ['options', 'jdbc_url'],
      message: `holds a password (${form}): give it as password, a \${VAR} reference: a literal password is never written in a configuration file, and a URL is not expanded`,
    });
  }
  const uri = entry.options?.uri;
  const password = typeof uri === 'string' ? parseMongoUri(uri)?.password : null;
  if (password && !ENV_REFERENCE.test(password)) {
    ctx.addIssue({
      code: 'custom',
      path: ['options', 'uri'],
      message: "holds a literal password: write it as a ${VAR} reference (mongodb://user:${VAR}@host/db): a literal password is never written in a configuration file",
    });
  }
});

const destinationEntry = destination.createFields.extend({ password: passwordReference });

/**
 * A query's definition fields keep the API's checks (apply reports them per
 * field); their types are stated here so that an editor validating against
 * the published JSON Schema knows them. Made or changed by a file, a query
 * is published, so there is no `publish`; `published: false` states a draft
 * (a query never published), which applying keeps unpublished.
 */
const jsonObject = z.record(z.string(), z.unknown());

const queryEntry = query.createFields.omit({ publish: true }).extend({
  sql: z.string().optional().describe('Required for SQL queries; absent for query_type mongo'),
  query_type: z.enum(['sql', 'mongo']).optional(),
  mongo_collection: z.string().optional().describe('query_type mongo: the collection read'),
  mongo_filter: jsonObject.nullable().optional().describe('query_type mongo: the find filter; a string that is exactly ":name" binds parameter name as a value'),
  mongo_projection: jsonObject.nullable().optional(),
  mongo_sort: jsonObject.nullable().optional(),
  parameters: z.record(z.string(), z.unknown()).nullable().optional(),
  connection_name: z.string().nullable().optional(),
  tags: z.array(z.string()).nullable().optional(),
  cache_ttl: z.number().int().nullable().optional(),
  published: z.literal(false).optional().describe('false: a draft, never published; applying keeps it unpublished (a published query cannot be made a draft again)'),
});

const roleEntry = role.createRoleFields;

/** Lower-case hex SHA-256 of a key's secret (`sluice config new-key` prints a secret and its hash). */
export const SECRET_SHA256 = /^[0-9a-f]{64}$/;

const keyEntry = key.createKeyFields.extend({
  secret_sha256: z
    .string()
    .regex(SECRET_SHA256, 'must be the lower-case hex SHA-256 of the secret (64 characters 0-9a-f)')
    .optional()
    .describe('Required for a new key; a new value on an existing key rotates it (the old secret lasts 60 minutes)'),
});

const exportEntry = exportFields.createFields;

/**
 * One connection's descriptions: the API's own items, and its notes. Items
 * not listed stay, unless the apply prunes; notes left out stay, null removes them.
 */
const descriptionsEntry = z.strictObject({
  notes: z.string().nullable().optional(),
  items: z.array(descriptionItem).optional(),
});

/** Keyed by connection name. */
const descriptionsSection = z.record(z.string().min(1), descriptionsEntry);

/** What each section holds, an entry at a time. */
const SECTION_ENTRIES = {
  connections: connectionEntry,
  destinations: destinationEntry,
  queries: queryEntry,
  roles: roleEntry,
  api_keys: keyEntry,
  exports: exportEntry,
} as const;

const fileHead = {
  format: z.literal(CONFIG_FORMAT, { error: `format must be "${CONFIG_FORMAT}"` }),
  format_version: z.literal(CONFIG_FORMAT_VERSION, { error: `format_version must be ${CONFIG_FORMAT_VERSION}` }),
  workspace: z.string().min(1).optional().describe('The workspace the file describes; default: the one the call is for, else "default"'),
};

export const configFileSchema = z.strictObject({
  ...fileHead,
  connections: z.array(connectionEntry).optional(),
  destinations: z.array(destinationEntry).optional(),
  queries: z.array(queryEntry).optional(),
  roles: z.array(roleEntry).optional(),
  api_keys: z.array(keyEntry).optional(),
  descriptions: descriptionsSection.optional().describe('Descriptions of tables and columns, and notes, keyed by connection name'),
  exports: z.array(exportEntry).optional(),
});

/** `configFileSchema` as parseConfigFile checks it: the sections' entries one at a time (file-shape.ts). */
const slicedHead = configFileSchema.extend({
  ...Object.fromEntries(Object.keys(SECTION_ENTRIES).map((section) => [section, z.array(z.unknown()).optional()])),
  descriptions: z.record(z.string().min(1), z.unknown()).optional(),
});
const slicedSections: SlicedSections = {
  ...Object.fromEntries(Object.entries(SECTION_ENTRIES).map(([section, entry]) => [section, { entry }])),
  descriptions: { entry: descriptionsEntry },
};

export type ConfigFile = z.infer<typeof configFileSchema>;
export type ConnectionEntry = z.infer<typeof connectionEntry>;
export type DestinationEntry = z.infer<typeof destinationEntry>;
export type QueryEntry = z.infer<typeof queryEntry>;
export type RoleEntry = z.infer<typeof roleEntry>;
export type KeyEntry = z.infer<typeof keyEntry>;
export type ExportEntry = z.infer<typeof exportEntry>;
/** A `descriptions` entry with the connection it is keyed by, as apply handles it. */
export type DescriptionsEntry = z.infer<typeof descriptionsEntry> & { name: string };

/** The SHA-256 of a file's bytes as sent: what `config_applied` and `config_applications` record. */
export const fileSha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Reads a configuration file: YAML (a superset of JSON, so `yaml` reads
 * either) or JSON. Every problem found without the store is thrown at once as
 * 400 `invalid_config`: syntax (with its line), shape (unknown fields, types,
 * literal passwords), names repeated within a section, a secret given to two
 * keys. With `maxObjects`, a file holding more is 413 `config_too_large`
 * before it is validated.
 */
export async function parseConfigFile(bytes: Buffer, contentType: 'json' | 'yaml' = 'yaml', options: { maxObjects?: number } = {}): Promise<ConfigFile> {
  const read = await readConfigFile(bytes, contentType, options);
  if (read.problems.length > 0) throw invalidConfig(read.problems);
  return read.file;
}

/** A file as read, with the problems found without the store: see `readConfigFile`. */
export interface ReadConfigFile {
  /** The file, or with problems, the entries whose own shape is right. */
  file: ConfigFile;
  problems: ConfigProblem[];
  /** Names of the entries left out of `file` for their shape: the store's view of what names them says nothing new. */
  leftOut: Set<string>;
}

/**
 * As `parseConfigFile`, but a file whose entries break the shape is given
 * back as what is right in it (the entries whose own shape is right) with
 * its problems, so that `applyConfig` can add what the store says of the
 * rest (`fileProblems`) and report every problem at once. A file that cannot
 * be read at all (syntax, depth, NUL, size) or repeats a name still throws.
 */
export async function readConfigFile(bytes: Buffer, contentType: 'json' | 'yaml' = 'yaml', { maxObjects }: { maxObjects?: number } = {}): Promise<ReadConfigFile> {
  const raw = contentType === 'json' ? readJson(bytes) : await readYaml(bytes);
  if (await nestsTooDeep(raw)) throw invalidConfig([{ path: '', message: `the file ${DEPTH_PROBLEM}` }]);
  if (maxObjects !== undefined) assertObjectCount(raw, maxObjects);
  const nul = await nulPathsOf(raw);
  if (nul.length > 0) throw invalidConfig(nul.map((path) => ({ path: problemPath(path.split('.').map(index)), message: NUL_PROBLEM })));
  const parsed = await parseInSlices<ConfigFile>(raw, slicedHead, slicedSections);
  if (!parsed.success) return { file: parsed.partial, problems: shapeProblems(parsed.issues), leftOut: leftOutNames(raw, parsed.partial) };
  // Applying relies on each name appearing once per section: a file that repeats one is not planned at all.
  const problems = [...repeatedNames(parsed.data), ...repeatedSecrets(parsed.data)];
  if (problems.length > 0) throw invalidConfig(problems);
  return { file: parsed.data, problems: [], leftOut: new Set() };
}

/** The names of the raw file's named entries that `partial` lacks. */
function leftOutNames(raw: unknown, partial: ConfigFile): Set<string> {
  const names = new Set<string>();
  if (raw === null || typeof raw !== 'object') return names;
  for (const section of [...NAMED_SECTIONS, 'descriptions'] as const) {
    const kept = new Set((sectionEntries(partial, section) ?? []).map((entry) => entry.name));
    const value = (raw as Record<string, unknown>)[section];
    const rawNames = Array.isArray(value)
      ? value.map((entry) => (entry !== null && typeof entry === 'object' ? (entry as { name?: unknown }).name : undefined))
      : value !== null && typeof value === 'object'
        ? Object.keys(value)
        : [];
    for (const name of rawNames) if (typeof name === 'string' && !kept.has(name)) names.add(name);
  }
  return names;
}

/** `"3"` in a dotted path is the list index 3. */
const index = (part: string): string | number => (/^\d+$/.test(part) ? Number(part) : part);

function readJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw invalidConfig([{ path: '', message: `not valid JSON: ${(err as Error).message}` }]);
  }
}

function shapeProblems(issues: z.core.$ZodIssue[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const field of issue.keys) problems.push({ path: problemPath([...issue.path, field]), message: 'unknown field', code: 'unknown_field' });
    } else {
      problems.push({ path: problemPath(issue.path), message: issue.message });
    }
  }
  return problems;
}

const NAMED_SECTIONS = ['connections', 'destinations', 'queries', 'roles', 'api_keys', 'exports'] as const;

function repeatedNames(file: ConfigFile): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const section of NAMED_SECTIONS) {
    const first = new Map<string, number>();
    (file[section] ?? []).forEach((entry, i) => {
      const seen = first.get(entry.name);
      if (seen === undefined) first.set(entry.name, i);
      else problems.push({ path: `${section}[${i}].name`, message: `"${entry.name}" is already ${section}[${seen}]: a name appears once per section` });
    });
  }
  return problems;
}

function repeatedSecrets(file: ConfigFile): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const first = new Map<string, number>();
  (file.api_keys ?? []).forEach((entry, i) => {
    if (!entry.secret_sha256) return;
    const seen = first.get(entry.secret_sha256);
    if (seen === undefined) first.set(entry.secret_sha256, i);
    else problems.push({ path: `api_keys[${i}].secret_sha256`, message: `the same as api_keys[${seen}]: two keys cannot share a secret`, code: 'key_secret_taken' });
  });
  return problems;
}

/** The entries of a section as apply walks them: a list as it is; `descriptions`, keyed by connection, as entries named after it. */
export function sectionEntries(file: ConfigFile, kind: Exclude<keyof ConfigFile, 'format' | 'format_version' | 'workspace'>): Array<{ name: string }> | undefined {
  if (kind !== 'descriptions') return file[kind];
  const section = file.descriptions;
  return section === undefined ? undefined : Object.entries(section).map(([name, entry]) => ({ name, ...entry }));
}

/** Where an entry is in the file: `queries[2]`, or `descriptions.<connection>`. */
export const entryPath = (kind: string, index: number, name: string): string => (kind === 'descriptions' ? problemPath([kind, name]) : `${kind}[${index}]`);
