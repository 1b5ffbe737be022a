import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { API, ZONED, addVersion, at, createQuery } from './queries-fixtures.ts';
import { expectError } from '../harness/expect-error.ts';

/** GET /api/v1/queries: summaries and the search, collection, connection and status filters. */

let origin: Origin;
const tok = randomBytes(4).toString('hex');
const one = `one-${tok}`;
const two = `two-${tok}`;
const connection = `conn_${tok}`;
const names = {
  byName: `Alpha_${tok}`,
  byDescription: `describes_${randomBytes(3).toString('hex')}`,
  byTag: `tagged_${randomBytes(3).toString('hex')}`,
  other: `other_${randomBytes(3).toString('hex')}`,
};

beforeAll(async () => {
  origin = await startOrigin();
  const made = await origin.call('POST', '/api/v1/connections', { name: connection, db: 'duckdb' });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  // Published, with a newer draft.
  await createQuery(origin, names.byName, { collection: one, publish: true, cache_ttl: 30, description: 'first', tags: ['finance'] });
  await addVersion(origin, names.byName, { description: 'draft text', cache_ttl: 99 });
  // A draft only; the token in its description, in another case.
  await createQuery(origin, names.byDescription, { collection: one, description: `Mentions ${tok.toUpperCase()} here` });
  // Published on the test connection, the token in a tag.
  await createQuery(origin, names.byTag, { collection: two, publish: true, connection_name: connection, sql: 'select 1 as n where 1 = :id', tags: ['x', `tag-${tok}`] });
  // Published on examples, with a draft on the test connection.
  await createQuery(origin, names.other, { collection: two, publish: true, description: '100% match_all' });
  await addVersion(origin, names.other, { connection_name: connection, sql: 'select :id as n' });
});
afterAll(async () => {
  await origin?.stop();
});

async function list(query: Record<string, string>): Promise<any[]> {
  const res = await origin.call('GET', `${API}?${new URLSearchParams(query)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.queries;
}
const namesOf = (entries: any[]) => entries.map((e) => e.name);

describe('list', () => {
  it('gives summaries sorted by name, mirroring the published version, else the newest', async () => {
    const entries = await list({});
    const all = namesOf(entries);
    expect(all).toEqual([...all].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const entry = entries.find((e) => e.name === names.byName);
    expect(Object.keys(entry).sort()).toEqual(
      ['name', 'collection', 'published_version', 'created_at', 'last_used_at', 'cache_ttl', 'example', 'description', 'tags', 'connection_name', 'versions', 'status'].sort(),
    );
    expect(entry).toMatchObject({
      collection: one,
      published_version: 1,
      last_used_at: null,
      cache_ttl: 30,
      example: false,
      description: 'first',
      tags: ['finance'],
      connection_name: 'examples',
      versions: 2,
      status: 'published',
    });
    expect(entry.created_at).toMatch(ZONED);
    expect(entries.find((e) => e.name === names.byDescription)).toMatchObject({ published_version: null, status: 'unpublished', versions: 1 });
  });

  it('search: a case-insensitive substring of the name, description or a tag', async () => {
    const expected = [names.byName, names.byDescription, names.byTag].sort();
    expect(namesOf(await list({ search: tok }))).toEqual(expected);
    expect(namesOf(await list({ search: tok.toUpperCase() }))).toEqual(expected);
    expect(namesOf(await list({ search: `alpha_${tok}` }))).toEqual([names.byName]);
    expect(namesOf(await list({ search: `TAG-${tok}` }))).toEqual([names.byTag]);
    // Matched against the serving version: the draft's description is not searched.
    expect(namesOf(await list({ search: 'draft text', collection: one }))).toEqual([]);
    // No wildcards: % and _ are plain characters.
    expect(namesOf(await list({ search: '%', collection: two }))).toEqual([names.other]);
    expect(namesOf(await list({ search: '_', collection: one }))).toEqual([names.byName, names.byDescription].sort());
    expect(namesOf(await list({ search: 'h_a', collection: two }))).toEqual([names.other]);
    expect(await list({ search: `nothing-${tok}` })).toEqual([]);
  });

  it('collection: the exact name', async () => {
    expect(namesOf(await list({ collection: one }))).toEqual([names.byName, names.byDescription].sort());
    expect(namesOf(await list({ collection: two }))).toEqual([names.byTag, names.other].sort());
    expect(await list({ collection: one.toUpperCase() })).toEqual([]);
  });

  it('connection: the default connection of the published version, else the newest', async () => {
    expect(namesOf(await list({ connection }))).toEqual([names.byTag]);
    // Unpublished, `other` is served by its newest version, which names the test connection.
    const res = await origin.call('POST', `${at(names.other)}/unpublish`);
    expect(res.status).toBe(200);
    try {
      expect(namesOf(await list({ connection }))).toEqual([names.byTag, names.other].sort());
      expect(namesOf(await list({ connection: 'examples', collection: two }))).toEqual([]);
    } finally {
      expect((await origin.call('POST', `${at(names.other)}/publish`, { version: 1 })).status).toBe(200);
    }
  });

  it('status: published, unpublished, draft', async () => {
    expect(namesOf(await list({ status: 'published', collection: one }))).toEqual([names.byName]);
    expect(namesOf(await list({ status: 'unpublished', collection: one }))).toEqual([names.byDescription]);
    // A draft: newer than the published version, or any version when nothing is published.
    expect(namesOf(await list({ status: 'draft', collection: one }))).toEqual([names.byName, names.byDescription].sort());
    expect(namesOf(await list({ status: 'draft', collection: two }))).toEqual([names.other]);
    expect(namesOf(await list({ status: 'published', collection: two }))).toEqual([names.byTag, names.other].sort());
  });

  it('combines filters', async () => {
    expect(namesOf(await list({ search: tok, collection: one, status: 'published' }))).toEqual([names.byName]);
    expect(namesOf(await list({ search: tok, connection, status: 'published' }))).toEqual([names.byTag]);
    expect(await list({ search: tok, collection: two, status: 'unpublished' })).toEqual([]);
  });

  it('refuses an unknown status with 400', async () => {
    for (const status of ['previous', 'PUBLISHED', 'all']) {
      const res = await origin.call('GET', `${API}?status=${status}`);
      expectError(res, 400, 'invalid_request');
      expect(res.body.errors.status).toBeTruthy();
    }
  });
});
