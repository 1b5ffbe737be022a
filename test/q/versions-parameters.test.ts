import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '../api/connections-fixtures.ts';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { addVersion, createQuery, getQ, postQ, requestIdOf, wasRecorded } from './fixture.ts';

/** /q/<name>: which version runs, parameter rules and undeclared markers, legacy {name} placeholders. */

let origin: Origin;
/** `SELECT id, title FROM films WHERE id <= :max_id ORDER BY id`. */
let films: string;

beforeAll(async () => {
  origin = await startOrigin({ env: { TZ: 'Europe/Paris' } });
  films = await createQuery(origin, { sql: 'SELECT id, title FROM films WHERE id <= :max_id ORDER BY id', parameters: { max_id: 'integer' } }, 'films');
});

afterAll(async () => {
  await origin?.stop();
});

describe('versions', () => {
  it('runs the published version, a draft or an older one by ?version=, and 404 for one that does not exist', async () => {
    const name = await createQuery(origin, { sql: "SELECT 'one' AS v" });
    const draft = await addVersion(origin, name, { sql: "SELECT 'two' AS v", connection_name: 'examples' });
    expect(draft).toBe(2);
    expect((await getQ(origin, name)).body).toEqual([{ v: 'one' }]);
    // The caller of an open server is the administrator: drafts run for it.
    expect((await getQ(origin, name, { version: 2 })).body).toEqual([{ v: 'two' }]);
    expect((await postQ(origin, name, { version: 2 })).body).toEqual([{ v: 'two' }]);
    const missing = await getQ(origin, name, { version: 9 });
    expect(missing.status).toBe(404);
    expect(Object.keys(missing.body)).toEqual(['error']);

    const published = await origin.call('POST', `/api/v1/queries/${name}/publish`, { version: 2 });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect((await getQ(origin, name)).body).toEqual([{ v: 'two' }]);
    expect((await getQ(origin, name, { version: 1 })).body).toEqual([{ v: 'one' }]);
  });

  it('answers 404 for an unknown or unpublished query; an administrator may still run its draft by number', async () => {
    const unknown = await getQ(origin, unique('nothing'));
    expect(unknown.status).toBe(404);
    const name = await createQuery(origin, { sql: 'SELECT 1 AS one', publish: false });
    const res = await getQ(origin, name);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe(`Query "${name}" not found or not published`);
    expect((await getQ(origin, name, { version: 1 })).body).toEqual([{ one: 1 }]);
  });

  it('answers 404 once the query is unpublished', async () => {
    const name = await createQuery(origin, { sql: 'SELECT 1 AS one' });
    expect((await getQ(origin, name)).status).toBe(200);
    expect((await origin.call('POST', `/api/v1/queries/${name}/unpublish`)).status).toBe(200);
    expect((await getQ(origin, name)).status).toBe(404);
  });

  it('refuses a version that is not a whole number', async () => {
    expect((await getQ(origin, films, { max_id: 1, version: 'latest' })).status).toBe(400);
    expect((await postQ(origin, films, { params: { max_id: 1 }, version: 1.5 })).status).toBe(400);
  });
});

describe('parameters', () => {
  it('lists every problem at once, runs nothing and records nothing', async () => {
    const name = await createQuery(origin, {
      sql: 'SELECT id FROM films WHERE id <= :max_id AND rating = :rating AND title LIKE :title AND :extra IS NOT NULL',
      parameters: {
        max_id: { type: 'integer', min: 1, max: 40 },
        rating: { type: 'string', enum: ['G', 'PG', 'R'] },
        title: { type: 'string', pattern: '[A-Z%][a-z% ]*', required: true },
      },
    });
    const res = await getQ(origin, name, { max_id: 99, rating: 'X' });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toBe('Invalid parameters');
    expect(Object.keys(res.body.errors).sort()).toEqual(['extra', 'max_id', 'rating', 'title']);
    expect(res.body.errors.extra).toBe('is required');
    expect(await wasRecorded(origin, requestIdOf(res))).toBe(false);

    const ok = await getQ(origin, name, { max_id: 40, rating: 'PG', title: 'T%', extra: 'anything' });
    expect(ok.status, ok.text).toBe(200);
  });

  it('passes undeclared markers through as supplied: text from a query string, typed values from JSON', async () => {
    const name = await createQuery(origin, { sql: 'SELECT CAST(:v AS VARCHAR) AS v' });
    expect((await getQ(origin, name, { v: '7.50' })).body).toEqual([{ v: '7.50' }]);
    expect((await postQ(origin, name, { params: { v: 7.5 } })).body).toEqual([{ v: '7.5' }]);
    const object = await postQ(origin, name, { params: { v: { a: 1 } } });
    expect(object.status).toBe(400);
    expect(object.body.errors).toEqual({ v: 'must be a single value' });
  });

  it('applies defaults and binds an optional parameter without a value as NULL', async () => {
    const name = await createQuery(origin, {
      sql: 'SELECT :limit_to AS l, :note IS NULL AS no_note',
      parameters: { limit_to: { type: 'integer', default: 3 }, note: { type: 'string', required: false } },
    });
    expect((await getQ(origin, name)).body).toEqual([{ l: 3, no_note: true }]);
    expect((await getQ(origin, name, { limit_to: 5, note: 'x' })).body).toEqual([{ l: 5, no_note: false }]);
  });
});

describe('legacy {name} placeholders', () => {
  let name: string;
  beforeAll(async () => {
    name = await createQuery(origin, {
      sql: 'SELECT id, {column} AS value FROM films WHERE id <= {max_id} ORDER BY id',
      parameters: { column: { type: 'string', enum: ['title', 'rating'] }, max_id: 'integer' },
    });
  });

  it('substitutes the resolved values as text', async () => {
    const res = await getQ(origin, name, { column: 'rating', max_id: 2 });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual([
      { id: 1, value: 'PG' },
      { id: 2, value: 'PG-13' },
    ]);
  });

  it('still checks the rules first', async () => {
    const res = await getQ(origin, name, { column: 'price; DROP TABLE films', max_id: 2 });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['column']);
  });

  it('refuses text that could leave its place, recording nothing', async () => {
    const open = await createQuery(origin, { sql: "SELECT '{label}' AS label", parameters: { label: 'string' } });
    expect((await getQ(origin, open, { label: 'plain text, 10% off: a@b +1/2' })).body).toEqual([{ label: 'plain text, 10% off: a@b +1/2' }]);
    const quoted = await getQ(origin, open, { label: "x' OR '1'='1" });
    expect(quoted.status).toBe(400);
    expect(quoted.body.error).toMatch(/\{label\}/);
    expect((await getQ(origin, open, { label: 'a--b' })).status).toBe(400);
    expect(await wasRecorded(origin, requestIdOf(quoted))).toBe(false);
  });

  it('substitutes an undeclared placeholder from a supplied value, and leaves it alone otherwise', async () => {
    const loose = await createQuery(origin, { sql: "SELECT '{who}' AS who" });
    expect((await getQ(origin, loose, { who: 'me' })).body).toEqual([{ who: 'me' }]);
    expect((await getQ(origin, loose)).body).toEqual([{ who: '{who}' }]);
  });
});
