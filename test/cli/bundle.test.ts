import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { shown, sluice } from './run-cli.ts';

/**
 * Collection bundles through the command, as processes: exported from one
 * origin (staging) and imported into another (production) with each
 * `--on-conflict` mode; a dry run and a refused import write nothing (the
 * queries and the audit log compared before and after); imported saves are
 * audited `save_query` with `source: import`.
 */

const tag = randomBytes(3).toString('hex');
const COLLECTION = `sales-${tag}`;
const FILMS = `films by length ${tag}`;
const COUNT = `film count ${tag}`;
const STAGING_KEY = `cli-bundle-staging-${randomBytes(8).toString('hex')}`;
const PRODUCTION_KEY = `cli-bundle-production-${randomBytes(8).toString('hex')}`;

let staging: Origin;
let production: Origin;
let dir: string;
let bundleFile: string;

const onStaging = (method: string, path: string, body?: unknown) => staging.call(method, path, body, { 'x-api-key': STAGING_KEY });
const onProduction = (method: string, path: string, body?: unknown) => production.call(method, path, body, { 'x-api-key': PRODUCTION_KEY });
const toStaging = { env: { SLUICE_CLI_API_KEY: STAGING_KEY } };
const toProduction = { env: { SLUICE_CLI_API_KEY: PRODUCTION_KEY } };
const importArgs = (file: string, ...more: string[]) => ['collection', 'import', file, '--server', production.url, ...more];

/** Run statistics, which history written in the background may move meanwhile. */
const RUN_FIELDS = new Set(['last_used_at', 'run_count']);

/** What an import may change: every query with its versions (runs aside), and the audit log's length. */
async function productionState(): Promise<unknown> {
  const listed = await onProduction('GET', '/api/v1/queries');
  const names: string[] = listed.body.queries.map((q: { name: string }) => q.name);
  const read = async (name: string) => (await onProduction('GET', `/api/v1/queries/${encodeURIComponent(name)}`)).body;
  const queries = JSON.parse(JSON.stringify(await Promise.all(names.sort().map(read)), (key, value) => (RUN_FIELDS.has(key) ? undefined : value)));
  const audit = await onProduction('GET', '/api/v1/audit?limit=1');
  return { queries, audit: audit.body.total };
}

async function writeBundle(name: string, document: unknown): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, toYaml(document));
  return file;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-cli-bundle-'));
  [staging, production] = await Promise.all([
    startOrigin({ edge: false, env: { SLUICE_API_KEY: STAGING_KEY } }),
    startOrigin({ edge: false, env: { SLUICE_API_KEY: PRODUCTION_KEY } }),
  ]);
  const made = await onStaging('POST', '/api/v1/queries', {
    name: FILMS,
    collection: COLLECTION,
    sql: 'select title from films where length_minutes >= :min_len order by id',
    parameters: { min_len: { type: 'int', min: 1, description: 'Shortest, in minutes' } },
    description: 'Films at least this long',
    tags: ['films', 'report'],
    connection_name: 'examples',
    cache_ttl: 60,
    publish: true,
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  expect((await onStaging('POST', '/api/v1/queries', { name: COUNT, collection: COLLECTION, sql: 'select count(*) as n from films', connection_name: 'examples', publish: true })).status).toBe(201);
  // A newer draft: the bundle holds the newest version, published or not.
  expect((await onStaging('POST', `/api/v1/queries/${encodeURIComponent(COUNT)}/versions`, { sql: 'select count(*) as films from films' })).status).toBe(201);
});

afterAll(async () => {
  await Promise.all([staging?.stop(), production?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('collection export', () => {
  it('writes the newest version of each query, and nothing else, to --out', async () => {
    bundleFile = join(dir, 'sales.bundle.yaml');
    const run = await sluice(['collection', 'export', COLLECTION, '--server', staging.url, '--out', bundleFile], toStaging);
    expect(run.code, shown(run)).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`Wrote ${bundleFile} (2 queries).`);
    const bundle = parseYaml(await readFile(bundleFile, 'utf8'));
    expect(bundle).toEqual({
      format: 'sluice-bundle',
      format_version: 1,
      collection: COLLECTION,
      queries: [
        { name: COUNT, sql: 'select count(*) as films from films', description: null, tags: [], parameters: {}, connection_name: 'examples', cache_ttl: null },
        {
          name: FILMS,
          sql: 'select title from films where length_minutes >= :min_len order by id',
          description: 'Films at least this long',
          tags: ['films', 'report'],
          parameters: { min_len: { type: 'int', min: 1, description: 'Shortest, in minutes' } },
          connection_name: 'examples',
          cache_ttl: 60,
        },
      ],
    });
  });

  it('prints JSON to standard output, and a Postman file with --format postman', async () => {
    const bundle = await sluice(['collection', 'export', COLLECTION, '--server', staging.url, '--quiet'], toStaging);
    expect(bundle.code, shown(bundle)).toBe(0);
    expect(bundle.stderr).toBe('');
    expect(JSON.parse(bundle.stdout).queries).toHaveLength(2);
    const postman = await sluice(['collection', 'export', COLLECTION, '--format', 'postman', '--server', staging.url], toStaging);
    expect(postman.code, shown(postman)).toBe(0);
    const file = JSON.parse(postman.stdout);
    expect(file.info.name).toBe(COLLECTION);
    expect(file.item.map((item: { name: string }) => item.name)).toEqual([COUNT, FILMS]);
    expect(file.variable[0]).toMatchObject({ key: 'baseUrl', value: staging.url });
  });

  it('exits 1 for a collection that does not exist', async () => {
    const run = await sluice(['collection', 'export', `none-${tag}`, '--server', staging.url], toStaging);
    expect(run.code, shown(run)).toBe(1);
    expect(run.stderr).toContain(`Collection "none-${tag}" not found`);
  });
});

describe('collection import', () => {
  it('--dry-run reports what it would do and writes nothing', async () => {
    const before = await productionState();
    const run = await sluice(importArgs(bundleFile, '--dry-run', '--json'), toProduction);
    expect(run.code, shown(run)).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ collection: COLLECTION, dry_run: true, created: [COUNT, FILMS], new_versions: [], skipped: [], unchanged: [], warnings: [] });
    expect(await productionState()).toEqual(before);
  });

  it('creates the queries, published, each audited save_query with source: import', async () => {
    const run = await sluice(importArgs(bundleFile), toProduction);
    expect(run.code, shown(run)).toBe(0);
    expect(run.stdout).toContain(`Created (2): ${COUNT}, ${FILMS}`);
    expect(run.stdout).toContain(`Imported 2 queries into collection "${COLLECTION}", published.`);
    const rows = await production.call('GET', `/q/${encodeURIComponent(FILMS)}?min_len=180`, undefined, { 'x-api-key': PRODUCTION_KEY });
    expect(rows.status, JSON.stringify(rows.body)).toBe(200);
    const query = (await onProduction('GET', `/api/v1/queries/${encodeURIComponent(FILMS)}`)).body;
    expect(query).toMatchObject({ collection: COLLECTION, published_version: 1, cache_ttl: 60, tags: ['films', 'report'], description: 'Films at least this long' });
    const audit = await onProduction('GET', `/api/v1/audit?action=save_query&target=${encodeURIComponent(FILMS)}`);
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0]).toMatchObject({ actor: 'admin', changes: { source: 'import', published: true, collection: COLLECTION, version: 1 } });
  });

  it('fail (the default) refuses the whole import when a query exists, naming each, and writes nothing', async () => {
    const before = await productionState();
    const run = await sluice(importArgs(bundleFile), toProduction);
    expect(run.code, shown(run)).toBe(1);
    expect(run.stderr).toContain(`sluice: ${bundleFile}: 2 problems; nothing was changed`);
    expect(run.stderr).toContain(`${bundleFile}: queries[0].name: a query named "${COUNT}" already exists (in collection "${COLLECTION}")`);
    expect(run.stderr).toContain(`${bundleFile}: queries[1].name: a query named "${FILMS}" already exists`);
    expect(run.stderr).toContain('--on-conflict skip');
    expect(await productionState()).toEqual(before);
  });

  it('skip leaves existing queries alone', async () => {
    const before = await productionState();
    const run = await sluice(importArgs(bundleFile, '--on-conflict', 'skip'), toProduction);
    expect(run.code, shown(run)).toBe(0);
    expect(run.stdout).toContain(`Skipped, already there (2): ${COUNT}, ${FILMS}`);
    expect(run.stdout).toContain('Nothing to write.');
    expect(await productionState()).toEqual(before);
  });

  it('new-version adds a published version to changed queries of the collection and leaves the same ones alone', async () => {
    const bundle = parseYaml(await readFile(bundleFile, 'utf8'));
    bundle.queries[1].sql = 'select title, length_minutes from films where length_minutes >= :min_len order by id';
    const changed = await writeBundle('changed.yaml', bundle);
    const run = await sluice(importArgs(changed, '--on-conflict', 'new-version'), toProduction);
    expect(run.code, shown(run)).toBe(0);
    expect(run.stdout).toContain(`Added a version to (1): ${FILMS}`);
    expect(run.stdout).toContain(`Unchanged (1): ${COUNT}`);
    const query = (await onProduction('GET', `/api/v1/queries/${encodeURIComponent(FILMS)}`)).body;
    expect(query.published_version).toBe(2);
    expect(query.sql).toBe(bundle.queries[1].sql);
    expect(query.cache_ttl).toBe(60);
    const audit = await onProduction('GET', `/api/v1/audit?action=save_query&target=${encodeURIComponent(FILMS)}`);
    expect(audit.body.items[0].changes).toMatchObject({ version: 2, source: 'import', published: true });
  });

  it('new-version never moves a query from another collection: a conflict, nothing written', async () => {
    const before = await productionState();
    const run = await sluice(importArgs(bundleFile, '--on-conflict', 'new-version', '--collection', `other-${tag}`), toProduction);
    expect(run.code, shown(run)).toBe(1);
    expect(run.stderr).toContain(`queries[1].name: a query named "${FILMS}" already exists in collection "${COLLECTION}": new-version never moves a query`);
    expect(run.stderr).toContain('move those queries into it first');
    expect(await productionState()).toEqual(before);
  });

  it('checks every entry before writing: a bad version, an unknown field, a bad definition and a missing collection are named by path at once, nothing written', async () => {
    const fresh = `fresh ${tag}`;
    const file = await writeBundle('broken.yaml', {
      format: 'sluice-bundle',
      format_version: 2,
      queries: [
        { name: fresh, sql: 'select 1 as one' },
        { name: `second ${tag}`, sql: 'select 1; select 2' },
        { name: `third ${tag}`, sql: 'select 1', colour: 'blue' },
      ],
    });
    const before = await productionState();
    const run = await sluice(importArgs(file), toProduction);
    expect(run.code, shown(run)).toBe(1);
    expect(run.stderr).toContain(`${file}: queries[2].colour: unknown field (an entry holds name, sql, description, tags, parameters, connection_name, cache_ttl)`);
    expect(run.stderr).toContain(`${file}: queries[1].sql: must be exactly one statement, the text holds 2`);
    expect(run.stderr).toContain(`${file}: collection: the bundle names none`);
    expect(run.stderr).toContain(`${file}: format_version: must be 1`);
    expect(run.stderr).toContain(`Fix ${file} where named above and run the command again.`);
    expect(await productionState()).toEqual(before);
  });

  it('names a file that is not valid YAML, and where', async () => {
    const file = join(dir, 'unparsable.yaml');
    await writeFile(file, 'format: sluice-bundle\nqueries: [\n');
    const run = await sluice(importArgs(file), toProduction);
    expect(run.code, shown(run)).toBe(1);
    expect(run.stderr).toContain(`sluice: ${file}: not valid YAML: `);
    expect(run.stderr).toMatch(/at line 3, column 1\n/);
  });

  it('imports a query whose connection is missing without one, with a warning', async () => {
    const name = `no connection ${tag}`;
    const file = await writeBundle('elsewhere.yaml', {
      format: 'sluice-bundle',
      format_version: 1,
      collection: `elsewhere-${tag}`,
      queries: [{ name, sql: 'select 1 as one', connection_name: 'warehouse' }],
    });
    const run = await sluice(importArgs(file), toProduction);
    expect(run.code, shown(run)).toBe(0);
    expect(run.stderr).toContain(`warning: ${file}: queries[0] (${name}): no connection named "warehouse" in workspace "default": imported without a default connection`);
    expect((await onProduction('GET', `/api/v1/queries/${encodeURIComponent(name)}`)).body).toMatchObject({ connection_name: null, published_version: 1 });
  });

  it('reads a bundle from standard input', async () => {
    const run = await sluice(importArgs('-', '--on-conflict', 'skip', '--quiet'), { ...toProduction, input: await readFile(bundleFile, 'utf8') });
    expect(run.code, shown(run)).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('Skipped, already there (2)');
  });
});
