import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { SECRET_LITERAL, save } from './fixture.ts';
import { validateOpenApi } from './openapi-checks.ts';
import { unique } from '../harness/unique.ts';

/**
 * `GET /openapi.json` on a server with an admin key: public, a valid OpenAPI
 * 3.1 document, the saved-query section for the key presented (none for an
 * anonymous reader), parameters typed from the rules, and never any SQL.
 */

const KEY = 'discovery-openapi-key-0123456789';
const auth = { 'x-api-key': KEY };
const tag = unique('oa').slice(3);

const TYPED = `oa typed ${tag}`;
const NO_CONNECTION = `oa_no_connection_${tag}`;
const HIDDEN = `oa hidden ${tag}`;

const TYPED_SQL = [
  'select title from films',
  'where id = :id and (:title is null or title = :title) and :rating is not null and :ratio is not null',
  `and :flag is not null and (:anything is null or true) and :who is not null and :passed is not null and title <> '${SECRET_LITERAL}'`,
].join(' ');
const TYPED_RULES = {
  id: { type: 'int', min: 1, max: 1000, description: 'Film id' },
  title: { type: 'str', min_length: 1, max_length: 40, pattern: '[A-Z].*', required: false },
  rating: { type: 'str', enum: ['G', 'PG', 'R'], default: 'G' },
  ratio: 'float',
  flag: { type: 'bool', default: false },
  anything: { required: false },
  who: { from_claim: 'email' },
};

let origin: Origin;
let doc: any;
let anonymous: any;

const pathOf = (name: string) => `/q/${encodeURIComponent(name)}`;
const operations = (document: any) =>
  Object.entries(document.paths).flatMap(([path, item]: [string, any]) => Object.entries(item).map(([method, op]: [string, any]) => ({ path, method, op })));
const resolve = (document: any, item: any) =>
  item?.$ref ? item.$ref.slice(2).split('/').reduce((node: any, part: string) => node[part], document) : item;

beforeAll(async () => {
  origin = await startOrigin({ env: { SLUICE_API_KEY: KEY } });
  await save(origin, { name: TYPED, sql: TYPED_SQL, parameters: TYPED_RULES, description: 'Typed on purpose' }, auth);
  await save(origin, { name: NO_CONNECTION, sql: 'select 1 as one', connection_name: null, collection: `oa-${tag}` }, auth);
  await save(origin, { name: HIDDEN, sql: `select '${SECRET_LITERAL}' as hidden`, publish: false }, auth);
  const keyed = await origin.call('GET', '/openapi.json', undefined, auth);
  expect(keyed.status).toBe(200);
  doc = keyed.body;
  anonymous = (await origin.call('GET', '/openapi.json')).body;
});

afterAll(async () => {
  await origin?.stop();
});

describe('GET /openapi.json', () => {
  it('is public: no key, or a wrong one, gets the document without saved queries', async () => {
    for (const headers of [{}, { 'x-api-key': 'wrong' }] as Array<Record<string, string>>) {
      const res = await origin.fetch('/openapi.json', { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('vary')).toMatch(/X-API-Key/i);
      const body = await res.json();
      expect(Object.keys(body.paths).filter((path) => path.startsWith('/q/'))).toEqual([]);
      expect(body.paths['/catalog']).toBeDefined();
    }
  });

  it('sits beside a public /docs page on a server with a key', async () => {
    const res = await origin.fetch('/docs');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('/openapi.json');
  });

  it('validates as OpenAPI 3.1, for the key holder and for an anonymous reader', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(await validateOpenApi(doc)).toEqual([]);
    expect(await validateOpenApi(anonymous)).toEqual([]);
  });

  it('names the server: title, version from /health, its own origin, the X-API-Key scheme', async () => {
    const health = await origin.call('GET', '/health');
    expect(doc.info).toMatchObject({ title: 'Sluice', version: health.body.version });
    expect(doc.servers).toEqual([{ url: origin.url }]);
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(doc.security).toEqual([{ ApiKey: [] }]);
    for (const path of ['/health', '/openapi.json', '/docs']) expect(doc.paths[path].get.security).toEqual([]);
    expect(doc.paths['/catalog'].get.security).toBeUndefined();
  });

  it('documents the fixed query endpoints', () => {
    const execute = doc.paths['/execute_sql'].post;
    const names = execute.parameters.map((p: any) => resolve(doc, p).name);
    expect(names).toEqual(['format', 'page', 'page_size', 'timeout', 'stream', 'dry_run']);
    const body = resolve(doc, execute.requestBody.content['application/json'].schema);
    expect(body.required).toEqual(expect.arrayContaining(['sql', 'connection_name']));
    expect(Object.keys(body.properties)).toEqual(['sql', 'params', 'connection_name', 'format', 'timeout', 'page', 'page_size', 'stream', 'dry_run']);
    const rows = resolve(doc, execute.responses['200']);
    expect(Object.keys(rows.content).sort()).toEqual(
      [
        'application/json',
        'application/x-ndjson',
        'text/csv',
        'text/tab-separated-values',
        'application/xml',
        'application/yaml',
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        'application/vnd.apache.parquet',
      ].sort(),
    );
    expect(doc.paths['/health'].get).toBeDefined();
    expect(doc.paths['/catalog'].get).toBeDefined();
    expect(doc.paths['/connections/{name}/schema'].get.parameters[0]).toMatchObject({ name: 'name', in: 'path', required: true });
    expect(doc.paths['/connections/{name}/table_ddl'].get.parameters[1]).toMatchObject({ name: 'table', in: 'query', required: true });
  });

  it('documents the Management API with request bodies from its schemas; only the kept schema route is deprecated', () => {
    expect(Object.keys(doc.paths['/api/v1/connections'])).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/v1/queries/{name}/versions/{version}']).sort()).toEqual(['delete', 'get', 'patch']);
    expect(doc.paths['/api/v1/history'].get).toBeDefined();
    expect(doc.paths['/api/v1/collections/{name}'].patch).toBeDefined();
    const create = doc.paths['/api/v1/queries'].post.requestBody.content['application/json'].schema;
    expect(create).toMatchObject({ type: 'object', required: ['name'], additionalProperties: false });
    expect(create.properties.publish).toEqual({ type: 'boolean' });
    const publish = doc.paths['/api/v1/queries/{name}/publish'].post.requestBody.content['application/json'].schema;
    expect(publish.properties.version).toMatchObject({ type: 'integer', exclusiveMinimum: 0 });
    expect(operations(doc).filter(({ op }) => op.deprecated).map(({ method, path }) => `${method} ${path}`)).toEqual(['get /connections/{name}/schema']);
  });

  it('has GET and POST /q/<name> for each published query only', () => {
    expect(doc.paths[pathOf(TYPED)]).toEqual({ get: expect.any(Object), post: expect.any(Object) });
    expect(doc.paths[pathOf(NO_CONNECTION)]).toEqual({ get: expect.any(Object), post: expect.any(Object) });
    expect(doc.paths[pathOf(HIDDEN)]).toBeUndefined();
    expect(doc.paths[pathOf(TYPED)].get.tags).toEqual(['Saved queries']);
    expect(doc.paths[pathOf(NO_CONNECTION)].get.tags).toEqual([`Saved queries: oa-${tag}`]);
  });

  it('types the GET parameters from the rules; from_claim ones are not sent; undeclared markers are required', () => {
    const params = doc.paths[pathOf(TYPED)].get.parameters.filter((p: any) => !p.$ref);
    const byName = Object.fromEntries(params.map((p: any) => [p.name, p]));
    expect(byName.id).toEqual({ name: 'id', in: 'query', required: true, description: 'Film id', example: 1, schema: { type: 'integer', minimum: 1, maximum: 1000, description: 'Film id' } });
    expect(byName.title).toMatchObject({ required: false, schema: { type: 'string', minLength: 1, maxLength: 40, pattern: '^[A-Z].*$' } });
    expect(byName.rating).toMatchObject({ required: false, example: 'G', schema: { type: 'string', enum: ['G', 'PG', 'R'], default: 'G' } });
    expect(byName.ratio).toMatchObject({ required: true, schema: { type: 'number' } });
    expect(byName.flag).toMatchObject({ required: false, schema: { type: 'boolean', default: false } });
    expect(byName.anything).toMatchObject({ required: false, schema: { type: ['string', 'number', 'boolean', 'null'] } });
    expect(byName.passed).toMatchObject({ required: true, schema: { type: 'string' } });
    expect(byName.who).toBeUndefined();
    expect(doc.paths[pathOf(TYPED)].get.description).toContain('claim email');
    const refs = doc.paths[pathOf(TYPED)].get.parameters.filter((p: any) => p.$ref).map((p: any) => p.$ref.split('/').pop());
    expect(refs).toEqual(['ConnectionName', 'Format', 'Page', 'PageSize', 'Timeout', 'Stream', 'DryRun', 'Version']);
    const noConnection = doc.paths[pathOf(NO_CONNECTION)].get.parameters.find((p: any) => p.name === 'connection_name');
    expect(noConnection).toMatchObject({ in: 'query', required: true });
  });

  it('types the POST body params from the rules', () => {
    const post = doc.paths[pathOf(TYPED)].post;
    const schema = post.requestBody.content['application/json'].schema;
    expect(post.requestBody.required).toBe(true);
    expect(schema.required).toEqual(['params']);
    expect(schema.additionalProperties).toBe(false);
    const params = schema.properties.params;
    expect(params.required).toEqual(['id', 'ratio', 'passed']);
    expect(params.properties.id).toEqual({ type: 'integer', minimum: 1, maximum: 1000, description: 'Film id' });
    expect(params.properties.rating).toEqual({ type: 'string', enum: ['G', 'PG', 'R'], default: 'G' });
    expect(params.properties.who).toBeUndefined();
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['params', 'connection_name', 'version', 'format', 'page', 'page_size', 'timeout', 'stream']));
    const noConnection = doc.paths[pathOf(NO_CONNECTION)].post.requestBody.content['application/json'].schema;
    expect(noConnection.required).toEqual(['connection_name']);
  });

  it('never contains SQL text', async () => {
    const catalog = await origin.call('GET', '/catalog', undefined, auth);
    for (const text of [JSON.stringify(doc), JSON.stringify(anonymous), JSON.stringify(catalog.body)]) {
      expect(text).not.toContain(SECRET_LITERAL);
      expect(text).not.toContain(TYPED_SQL);
      expect(text).not.toContain('from films');
      expect(text).not.toContain('is not null');
    }
  });

  it('gives every operation a unique id, the same on every read', async () => {
    const ids = operations(doc).map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const again = (await origin.call('GET', '/openapi.json', undefined, auth)).body;
    expect(operations(again).map(({ op }) => op.operationId)).toEqual(ids);
    expect(doc.paths[pathOf(TYPED)].get.operationId).toBe(`getQ_oa-20-typed-20-${tag}`);
    expect(doc.paths[pathOf(NO_CONNECTION)].post.operationId).toBe(`postQ_${NO_CONNECTION}`);
    const staticIds = operations(anonymous).map(({ op }) => op.operationId);
    expect(ids).toEqual(expect.arrayContaining(staticIds));
  });

  it('documents bodies the routes accept: every documented field is taken', async () => {
    const execute = await origin.call(
      'POST',
      '/execute_sql',
      { sql: 'select 1 as one', params: {}, connection_name: 'examples', format: 'json', timeout: 5, page: 1, page_size: 10, stream: false },
      auth,
    );
    expect(execute.status, JSON.stringify(execute.body)).toBe(200);
    const run = await origin.call(
      'POST',
      pathOf(NO_CONNECTION),
      { params: {}, connection_name: 'examples', version: 1, format: 'json', timeout: 5, page: 1, page_size: 10, stream: false },
      auth,
    );
    expect(run.status, JSON.stringify(run.body)).toBe(200);
  });
});
