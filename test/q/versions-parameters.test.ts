import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from '../harness/origin.ts';
import { addVersion, createQuery, getQ, postQ, requestIdOf, wasRecorded } from './fixture.ts';
import { unique } from '../harness/unique.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';

/** /q/<name>: which version runs, parameter rules and undeclared markers, pattern rules on RE2, legacy {name} placeholders. */

let origin: Origin;
/** `SELECT id, title FROM films WHERE id <= :max_id ORDER BY id`. */
let films: string;

beforeAll(async () => {
  origin = await sharedOrigin();
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

describe('pattern rules', () => {
  it('answer a value that would backtrack for ever at once, and never hold /health up', async () => {
    const name = await createQuery(origin, { sql: 'SELECT :v AS v', parameters: { v: { type: 'string', pattern: '(a+)+$' } } });
    expect((await getQ(origin, name, { v: 'aaa' })).body).toEqual([{ v: 'aaa' }]);
    // 31 characters took 9.5 s on a backtracking engine, each two more about four times as long: these would never finish.
    // (4,000 in the query string: the edge's workerd answers 431 to a much longer URL.)
    const [byQuery, byBody, health] = await Promise.all([
      getQ(origin, name, { v: `${'a'.repeat(4_000)}b` }),
      postQ(origin, name, { params: { v: `${'a'.repeat(100_000)}b` } }),
      origin.fetch('/health'),
    ]);
    for (const refused of [byQuery, byBody]) {
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual({ v: 'must match the pattern ^(a+)+$' });
    }
    expect(health.status).toBe(200);
  });

  it('refuse lookarounds and back references on every route that saves or checks rules, saying why', async () => {
    const lookahead = { sql: 'SELECT :v AS v', connection_name: 'examples', parameters: { v: { type: 'string', pattern: '(?=.*\\d)\\w+' } } };
    const created = await origin.call('POST', '/api/v1/queries', { ...lookahead, name: unique('look') });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ code: 'invalid_request', request_id: expect.any(String) });
    expect(created.body.errors['parameters.v']).toBe('pattern is not accepted: lookahead ((?=…), (?!…)) is not supported (patterns use RE2 syntax)');

    const name = await createQuery(origin, { sql: 'SELECT :v AS v', parameters: { v: 'string' } });
    const backReference = { ...lookahead, parameters: { v: { type: 'string', pattern: '(a)\\1' } } };
    const added = await origin.call('POST', `/api/v1/queries/${name}/versions`, backReference);
    expect(added.status).toBe(400);
    expect(added.body.errors['parameters.v']).toContain('back references (\\1, \\k<name>) are not supported');

    const validated = await origin.call('POST', '/api/v1/queries/validate', { ...lookahead, parameters: { v: { pattern: '(?<!x)y' } } });
    expect(validated.status).toBe(200);
    expect(validated.body.valid).toBe(false);
    expect(validated.body.errors['parameters.v']).toContain('lookbehind');
  });

  it("accept RE2's own syntax", async () => {
    const name = await createQuery(origin, { sql: 'SELECT :v AS v', parameters: { v: { type: 'string', pattern: '(?i)[[:alpha:]]+\\x{20AC}' } } });
    expect((await getQ(origin, name, { v: 'AbC€' })).body).toEqual([{ v: 'AbC€' }]);
    expect((await getQ(origin, name, { v: 'AbC$' })).status).toBe(400);
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

  it('refuses text that could leave its quoted string, as a parameter error, recording nothing', async () => {
    const open = await createQuery(origin, { sql: "SELECT '{label}' AS label", parameters: { label: 'string' } });
    expect((await getQ(origin, open, { label: 'plain text, 10% off: a@b +1/2' })).body).toEqual([{ label: 'plain text, 10% off: a@b +1/2' }]);
    // Inside the quotes `--` is text.
    expect((await getQ(origin, open, { label: 'a--b' })).body).toEqual([{ label: 'a--b' }]);
    const quoted = await getQ(origin, open, { label: "x' OR '1'='1" });
    expect(quoted.status).toBe(400);
    expect(quoted.body).toEqual({ error: 'Invalid parameters', errors: { label: expect.stringContaining('inside a quoted string') } });
    expect(await wasRecorded(origin, requestIdOf(quoted))).toBe(false);
  });

  it("outside quotes takes only a number or a boolean: the review's UNION reads nothing of another table", async () => {
    const above = await createQuery(origin, { sql: 'SELECT id, title FROM films WHERE id > {n} ORDER BY id LIMIT 2' });
    expect((await getQ(origin, above, { n: '0' })).body).toEqual([
      { id: 1, title: expect.any(String) },
      { id: 2, title: expect.any(String) },
    ]);
    const union = await getQ(origin, above, { n: '0 UNION SELECT 1, email FROM customers' });
    expect(union.status, union.text).toBe(400);
    expect(union.body).toEqual({ error: 'Invalid parameters', errors: { n: 'is pasted into the SQL outside quotes: must be a number or a boolean' } });
    expect(union.text).not.toContain('@');
    expect((await getQ(origin, above, { n: 'id' })).status).toBe(400);
  });

  it('substitutes an undeclared placeholder from a supplied value, and leaves it alone otherwise', async () => {
    const loose = await createQuery(origin, { sql: "SELECT '{who}' AS who" });
    expect((await getQ(origin, loose, { who: 'me' })).body).toEqual([{ who: 'me' }]);
    expect((await getQ(origin, loose)).body).toEqual([{ who: '{who}' }]);
  });
});
