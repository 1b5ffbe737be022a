import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { API, FILM_SQL, ZONED, addVersion, at, createQuery, definition, versionAt } from './queries-fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';

/** Saved queries over the Management API: create, read, definition checks, names, collections, cache_ttl, delete. */

let origin: Origin;
beforeAll(async () => {
  origin = await sharedOrigin();
});
afterAll(async () => {
  await origin?.stop();
});

describe('create', () => {
  it('answers 201 with the query, its first version as a draft, an ETag and a Location', async () => {
    const name = unique('films by id');
    const res = await createQuery(origin, name, { description: 'One film', tags: ['films', 'Catalog'], cache_ttl: 60 });
    expect(res.headers.get('etag')).toMatch(/^"q\d+\.1"$/);
    expect(res.headers.get('location')).toBe(at(name));
    const q = res.body;
    expect(Object.keys(q).sort()).toEqual(
      [
        'name', 'collection', 'published_version', 'created_at', 'updated_at', 'last_used_at', 'example', 'description',
        'sql', 'parameters', 'connection_name', 'tags', 'author', 'cache_ttl', 'versions',
      ].sort(),
    );
    expect(q).toMatchObject({
      name,
      collection: null,
      published_version: null,
      last_used_at: null,
      example: false,
      description: 'One film',
      sql: FILM_SQL,
      parameters: { id: 'integer' },
      connection_name: 'examples',
      tags: ['films', 'Catalog'],
      author: '-',
      cache_ttl: 60,
    });
    expect(q.created_at).toMatch(ZONED);
    expect(q.updated_at).toMatch(ZONED);
    expect(q.versions).toHaveLength(1);
    const [v1] = q.versions;
    expect(Object.keys(v1).sort()).toEqual(
      ['version', 'status', 'query_type', 'sql', 'parameters', 'description', 'connection_name', 'tags', 'author', 'cache_ttl', 'created_at', 'run_count'].sort(),
    );
    expect(v1).toMatchObject({ version: 1, status: 'draft', query_type: 'sql', sql: FILM_SQL, parameters: { id: 'integer' }, run_count: 0, cache_ttl: 60 });
    expect(v1.created_at).toBe(q.created_at);

    const read = await origin.call('GET', at(name));
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
    expect(read.body).toEqual(q);
  });

  it('publishes the first version with publish: true and keeps an explicit author', async () => {
    const res = await createQuery(origin, unique('pub'), { publish: true, author: 'Ada' });
    expect(res.body.published_version).toBe(1);
    expect(res.body.versions[0]).toMatchObject({ version: 1, status: 'published', author: 'Ada' });
    expect(res.body.author).toBe('Ada');
  });

  it('shows parameters in the v1 alias type names, rule objects included', async () => {
    const res = await createQuery(origin, unique('rules'), {
      sql: 'select * from films where rating = :rating and length_minutes >= :min_len and price < {max_price}',
      parameters: {
        rating: { type: 'str', enum: ['G', 'PG'], default: 'G' },
        min_len: { type: 'integer', min: 0, required: false },
        max_price: 'float',
      },
    });
    expect(res.body.parameters).toEqual({
      rating: { type: 'string', default: 'G', enum: ['G', 'PG'] },
      min_len: { type: 'integer', required: false, min: 0 },
      max_price: 'number',
    });
  });

  it('accepts a query without parameters, connection or optional fields', async () => {
    const res = await origin.call('POST', API, { name: unique('bare'), sql: 'select 1 as one' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ parameters: {}, connection_name: null, tags: [], cache_ttl: null, description: null });
  });

  it('refuses a taken name with 409 query_exists', async () => {
    const name = unique('dup');
    await createQuery(origin, name);
    expectError(await origin.call('POST', API, { name, ...definition() }), 409, 'query_exists');
  });

  it('accepts names of letters, digits, spaces, dots, underscores and dashes', async () => {
    for (const name of [`Sales by month.v2_x-${unique('n')}`, `Café ${unique('n')}`, `${'a'.repeat(91)}${unique('').slice(0, 9)}`]) {
      expect(name.length).toBeLessThanOrEqual(100);
      await createQuery(origin, name);
      expect((await origin.call('GET', at(name))).status).toBe(200);
    }
  });

  it('refuses bad names with invalid_name', async () => {
    for (const name of ['', 'a/b', 'semi;colon', 'x'.repeat(101), 'emoji 🙂', ' lead', 'trail ', '..', '.', 'quote"d', 'q?x']) {
      expectError(await origin.call('POST', API, { name, ...definition() }), 400, 'invalid_name');
    }
  });

  it('refuses unknown fields with unknown_field', async () => {
    const res = await origin.call('POST', API, { name: unique('u'), ...definition(), sqll: 'typo' });
    expectError(res, 400, 'unknown_field');
    expect(res.body.error).toContain('sqll');
    const version = await origin.call('POST', `${at(unique('nope'))}/versions`, { ...definition(), name: 'x' });
    expectError(version, 400, 'unknown_field');
  });

  it('refuses fields of the wrong type', async () => {
    expectError(await origin.call('POST', API, { name: unique('t'), ...definition(), publish: 'yes' }), 400, 'invalid_request');
    expectError(await origin.call('POST', API, { name: unique('t'), ...definition(), description: 5 }), 400, 'invalid_request');
    expectError(await origin.call('POST', API, { ...definition() }), 400, 'invalid_request');
    const notJson = await origin.fetch(API, { method: 'POST', body: '{nope', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBe(400);
  });
});

describe('definition checks', () => {
  it('lists every problem at once in an errors map keyed by field', async () => {
    const res = await origin.call('POST', API, {
      name: unique('bad'),
      sql: 'select * from films where id = :id and title = {title}',
      parameters: {
        id: 'decimal',
        title: 'str',
        unused: 'int',
        page: 'int',
        'bad-name': 'int',
        span: { type: 'int', min: 5, max: 1 },
      },
      connection_name: 'no_such_connection',
      tags: ['ok', 3],
      cache_ttl: -1,
      collection: 'Bad Collection',
    });
    expectError(res, 400, 'invalid_request');
    const { errors } = res.body;
    expect(Object.keys(errors).sort()).toEqual(
      [
        'parameters.id', 'parameters.unused', 'parameters.page', 'parameters.bad-name', 'parameters.span',
        'connection_name', 'tags', 'cache_ttl', 'collection',
      ].sort(),
    );
    expect(errors['parameters.unused']).toMatch(/never uses/);
    expect(errors['parameters.page']).toMatch(/reserved/);
    expect(errors.connection_name).toContain('no_such_connection');
    // A parameter used only as a legacy {placeholder} counts as used.
    expect(res.body.errors['parameters.title']).toBeUndefined();
  });

  it('needs SQL of exactly one statement', async () => {
    const missing = await origin.call('POST', API, { name: unique('nosql'), parameters: { id: 'int' }, tags: 'x' });
    expectError(missing, 400, 'invalid_request');
    expect(Object.keys(missing.body.errors).sort()).toEqual(['sql', 'tags']);
    for (const sql of ['', '   ', '-- only a comment', ';']) {
      const res = await origin.call('POST', API, { name: unique('empty'), sql });
      expectError(res, 400, 'invalid_request');
      expect(res.body.errors.sql).toBeTruthy();
    }
    const two = await origin.call('POST', API, { name: unique('two'), sql: 'select 1; select 2' });
    expectError(two, 400, 'invalid_request');
    expect(two.body.errors.sql).toMatch(/one statement/);
    const notText = await origin.call('POST', API, { name: unique('num'), sql: 42 });
    expect(notText.body.errors.sql).toBeTruthy();
    // A trailing semicolon is still one statement; a ; in a string is not a separator.
    await createQuery(origin, unique('semi'), { sql: "select title from films where id = :id and title <> 'a;b';" });
  });

  it('counts a parameter as used by a :marker or a legacy {placeholder}, never inside a string or comment', async () => {
    await createQuery(origin, unique('legacy'), { sql: 'select * from films where id = {id}' });
    const inString = await origin.call('POST', API, { name: unique('str'), ...definition({ sql: "select ':id' as x -- :id" }) });
    expectError(inString, 400, 'invalid_request');
    expect(Object.keys(inString.body.errors)).toEqual(['parameters.id']);
    // Markers used but not declared are allowed (required and passed through).
    await createQuery(origin, unique('undeclared'), { parameters: {} });
  });

  it('refuses parameters that are not an object, naming the field', async () => {
    const res = await origin.call('POST', API, { name: unique('arr'), sql: FILM_SQL, parameters: ['id'] });
    expectError(res, 400, 'invalid_request');
    expect(Object.keys(res.body.errors)).toEqual(['parameters']);
  });

  it('checks a new version the same way', async () => {
    const name = unique('v');
    await createQuery(origin, name);
    const res = await origin.call('POST', `${at(name)}/versions`, { sql: 'select 1; select 2', parameters: { x: 'int' }, cache_ttl: 1.5 });
    expectError(res, 400, 'invalid_request');
    expect(Object.keys(res.body.errors).sort()).toEqual(['cache_ttl', 'parameters.x', 'sql']);
    expect((await origin.call('GET', at(name))).body.versions).toHaveLength(1);
  });

  it('checks document-database fields by query type: mongo fields on SQL, SQL on mongo, a missing collection', async () => {
    const res = await origin.call('POST', API, { name: unique('mongo'), query_type: 'mongo', sql: 'SELECT 1', mongo_filter: { $where: 'sleep(1)' } });
    expectError(res, 400, 'invalid_request');
    expect(Object.keys(res.body.errors).sort()).toEqual(['mongo_collection', 'mongo_filter', 'sql']);
    const stray = await origin.call('POST', API, { name: unique('stray'), ...definition(), mongo_filter: {} });
    expectError(stray, 400, 'invalid_request');
    expect(stray.body.errors.mongo_filter).toBeTruthy();
    const other = await origin.call('POST', API, { name: unique('other'), ...definition(), query_type: 'graphql' });
    expect(other.body.errors.query_type).toBeTruthy();
    await createQuery(origin, unique('sqltype'), { query_type: 'sql' });
  });
});

describe('read', () => {
  it('answers 404 query_not_found and version_not_found', async () => {
    expectError(await origin.call('GET', at(unique('nope'))), 404, 'query_not_found');
    const name = unique('one');
    await createQuery(origin, name);
    expectError(await origin.call('GET', versionAt(name, 2)), 404, 'version_not_found');
    for (const bad of ['0', 'abc', '-1', '1.5']) expectError(await origin.call('GET', versionAt(name, bad)), 404, 'version_not_found');
    expectError(await origin.call('GET', versionAt(unique('nope'), 1)), 404, 'query_not_found');
  });

  it('reads one version with the query ETag', async () => {
    const name = unique('ver');
    const created = await createQuery(origin, name, { publish: true });
    await addVersion(origin, name, { description: 'second' });
    const res = await origin.call('GET', versionAt(name, 2));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name, version: 2, status: 'draft', description: 'second', sql: FILM_SQL, run_count: 0 });
    expect(res.headers.get('etag')).toMatch(/^"q\d+\.2"$/);
    expect(res.headers.get('etag')).not.toBe(created.headers.get('etag'));
    expect((await origin.call('GET', versionAt(name, 1))).body.status).toBe('published');
  });

  it('lists versions newest first and mirrors the published version, else the newest', async () => {
    const name = unique('mirror');
    await createQuery(origin, name, { description: 'v1', tags: ['one'] });
    await addVersion(origin, name, { description: 'v2', tags: ['two'], cache_ttl: 5 });
    let q = (await origin.call('GET', at(name))).body;
    expect(q.versions.map((v: any) => v.version)).toEqual([2, 1]);
    expect(q).toMatchObject({ description: 'v2', tags: ['two'], cache_ttl: 5 });
    await origin.call('POST', `${at(name)}/publish`, { version: 1 });
    q = (await origin.call('GET', at(name))).body;
    expect(q).toMatchObject({ published_version: 1, description: 'v1', tags: ['one'], cache_ttl: null });
    expect(q.created_at).toBe(q.versions[1].created_at);
  });
});

describe('collections', () => {
  it('accepts valid collection names on create and through PATCH, never as a new version', async () => {
    const name = unique('coll');
    const long = `c${'x'.repeat(62)}`;
    const created = await createQuery(origin, name, { collection: 'sales.eu_2024-q1' });
    expect(created.body.collection).toBe('sales.eu_2024-q1');
    for (const collection of [long, '9lives', 'a', null]) {
      const res = await origin.call('PATCH', at(name), { collection });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.collection).toBe(collection);
      expect(res.body.versions).toHaveLength(1);
    }
  });

  it('refuses uppercase, too long, a bad start or bad characters, never case-folding', async () => {
    const name = unique('badcoll');
    await createQuery(origin, name, { collection: 'fine' });
    for (const collection of ['Sales', 'SALES', `c${'x'.repeat(63)}`, '', '-x', '.x', '_x', 'a b', 'a/b', 'é']) {
      const res = await origin.call('PATCH', at(name), { collection });
      expectError(res, 400, 'invalid_request');
      expect(res.body.errors.collection).toBeTruthy();
      const create = await origin.call('POST', API, { name: unique('bc'), ...definition(), collection });
      expectError(create, 400, 'invalid_request');
      expect(create.body.errors.collection).toBeTruthy();
    }
    expect((await origin.call('GET', at(name))).body.collection).toBe('fine');
  });

  it('takes only {collection} in PATCH', async () => {
    const name = unique('patch');
    await createQuery(origin, name);
    expectError(await origin.call('PATCH', at(name), { description: 'x' }), 400, 'unknown_field');
    expectError(await origin.call('PATCH', at(name), {}), 400, 'invalid_request');
    expectError(await origin.call('PATCH', at(unique('nope')), { collection: 'x' }), 404, 'query_not_found');
  });

  it('moving to the same collection changes nothing', async () => {
    const name = unique('same');
    const created = await createQuery(origin, name, { collection: 'here' });
    const res = await origin.call('PATCH', at(name), { collection: 'here' });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(created.headers.get('etag'));
  });
});

describe('cache_ttl of a version', () => {
  it('changes in place: not a new version, the ETag moves', async () => {
    const name = unique('ttl');
    const created = await createQuery(origin, name, { publish: true, cache_ttl: 30 });
    const res = await origin.call('PATCH', versionAt(name, 1), { cache_ttl: 120 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ name, version: 1, cache_ttl: 120, status: 'published' });
    expect(res.headers.get('etag')).not.toBe(created.headers.get('etag'));
    const q = (await origin.call('GET', at(name))).body;
    expect(q.versions).toHaveLength(1);
    expect(q.cache_ttl).toBe(120);
    expect((await origin.call('PATCH', versionAt(name, 1), { cache_ttl: null })).body.cache_ttl).toBeNull();
    expect((await origin.call('PATCH', versionAt(name, 1), { cache_ttl: 0 })).body.cache_ttl).toBe(0);
  });

  it('refuses a negative, fractional or textual cache_ttl and other fields', async () => {
    const name = unique('badttl');
    await createQuery(origin, name);
    for (const cache_ttl of [-1, 1.5, '60']) {
      const res = await origin.call('PATCH', versionAt(name, 1), { cache_ttl });
      expectError(res, 400, 'invalid_request');
      expect(res.body.errors.cache_ttl).toBeTruthy();
    }
    expectError(await origin.call('PATCH', versionAt(name, 1), { cache_ttl: 1, sql: 'select 2' }), 400, 'unknown_field');
    expectError(await origin.call('PATCH', versionAt(name, 9), { cache_ttl: 1 }), 404, 'version_not_found');
  });
});

describe('delete', () => {
  it('removes the query with every version; the name is free again', async () => {
    const name = unique('del');
    await createQuery(origin, name, { publish: true, collection: 'gone' });
    await addVersion(origin, name);
    const res = await origin.call('DELETE', at(name));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ name, collection: 'gone', versions: [2, 1] });
    expectError(await origin.call('GET', at(name)), 404, 'query_not_found');
    expectError(await origin.call('GET', versionAt(name, 1)), 404, 'query_not_found');
    expectError(await origin.call('DELETE', at(name)), 404, 'query_not_found');
    const again = await createQuery(origin, name);
    expect(again.body.versions.map((v: any) => v.version)).toEqual([1]);
  });

  it('answers 404 for an unknown query or version', async () => {
    expectError(await origin.call('DELETE', versionAt(unique('nope'), 1)), 404, 'query_not_found');
    const name = unique('dv');
    await createQuery(origin, name);
    expectError(await origin.call('DELETE', versionAt(name, 2)), 404, 'version_not_found');
    expectError(await origin.call('POST', `${at(name)}/publish`, { version: 3 }), 404, 'version_not_found');
    expectError(await origin.call('POST', `${at(unique('nope'))}/publish`, { version: 1 }), 404, 'query_not_found');
    expectError(await origin.call('POST', `${at(unique('nope'))}/unpublish`), 404, 'query_not_found');
    expectError(await origin.call('POST', `${at(unique('nope'))}/versions`, definition()), 404, 'query_not_found');
  });

  it('checks the publish body', async () => {
    const name = unique('pb');
    await createQuery(origin, name);
    expectError(await origin.call('POST', `${at(name)}/publish`, {}), 400, 'invalid_request');
    expectError(await origin.call('POST', `${at(name)}/publish`, { version: '1' }), 400, 'invalid_request');
    expectError(await origin.call('POST', `${at(name)}/publish`, { version: 0 }), 400, 'invalid_request');
    expectError(await origin.call('POST', `${at(name)}/publish`, { version: 1, force: true }), 400, 'unknown_field');
    expectError(await origin.call('POST', `${at(name)}/unpublish`, { now: true }), 400, 'unknown_field');
  });
});
