import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG } from '../api/connections-fixtures.ts';
import type { Origin } from '../harness/origin.ts';
import { type QResponse, createQuery, getQ, postQ, requestIdOf, wasRecorded } from './fixture.ts';
import { unique } from '../harness/unique.ts';
import { sharedOrigin } from '../harness/shared-origin.ts';

/**
 * /q/<name> on PostgreSQL with values the database would refuse: they are
 * parameter errors (400 `errors`, nothing run, nothing recorded), never the
 * database's 500.
 */

let origin: Origin;
let pg: string;
/** `int` parameter `minid`. */
let films: string;
/** `str` parameter `title`. */
let titled: string;
/** Undeclared marker `v`. */
let undeclared: string;

beforeAll(async () => {
  origin = await sharedOrigin();
  pg = unique('bad_values_pg');
  const made = await origin.call('POST', '/api/v1/connections', { name: pg, db: 'postgres', ...PG });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  films = await createQuery(origin, { sql: 'SELECT n FROM generate_series(1, 3) AS n WHERE n >= :minid', parameters: { minid: 'integer' }, connection_name: pg }, 'films_q');
  titled = await createQuery(origin, { sql: 'SELECT :title AS title', parameters: { title: 'string' }, connection_name: pg }, 'titled');
  undeclared = await createQuery(origin, { sql: 'SELECT CAST(:v AS text) AS v', connection_name: pg }, 'undeclared');
});

afterAll(async () => {
  await origin?.stop();
});

async function expectParameterError(res: QResponse, name: string, problem: RegExp): Promise<void> {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error).toBe('Invalid parameters');
  expect(Object.keys(res.body)).toEqual(['error', 'errors']);
  expect(res.body.errors[name]).toMatch(problem);
  expect(await wasRecorded(origin, requestIdOf(res))).toBe(false);
}

describe('an int parameter is a signed 64-bit integer', () => {
  it('refuses a value past either end, from a query string or JSON, before the database', async () => {
    for (const minid of ['99999999999999999999999', '9223372036854775808', '-9223372036854775809']) {
      await expectParameterError(await getQ(origin, films, { minid }), 'minid', /integer from -9223372036854775808 to 9223372036854775807/);
    }
    // JSON numbers are doubles: 1e19 is a whole number, and past the range.
    await expectParameterError(await postQ(origin, films, '{"params": {"minid": 1e19}}'), 'minid', /integer from/);
    await expectParameterError(await postQ(origin, films, '{"params": {"minid": 1e308}}'), 'minid', /integer from/);
  });

  it('runs the ends of the range', async () => {
    expect((await getQ(origin, films, { minid: '9223372036854775807' })).body).toEqual({ message: 'No results returned' });
    expect((await getQ(origin, films, { minid: '-9223372036854775808' })).body).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });
});

describe('NUL characters', () => {
  it('in a text parameter are a parameter error: PostgreSQL cannot hold them', async () => {
    await expectParameterError(await getQ(origin, titled, 'title=a%00b'), 'title', /NUL/);
    await expectParameterError(await postQ(origin, titled, { params: { title: 'a\u0000b' } }), 'title', /NUL/);
    expect((await getQ(origin, titled, { title: 'a b' })).body).toEqual([{ title: 'a b' }]);
  });

  it('in the name or a request option is 400 in the query shape, before any lookup', async () => {
    const named = await getQ(origin, 'a\u0000b');
    expect(named.status, named.text).toBe(400);
    expect(Object.keys(named.body)).toEqual(['error']);
    const option = await getQ(origin, films, 'minid=1&connection_name=%00');
    expect(option.status, option.text).toBe(400);
    expect(option.body.errors).toEqual({ connection_name: 'must not contain a NUL character' });
  });

  it('in the value of an undeclared marker too', async () => {
    await expectParameterError(await getQ(origin, undeclared, 'v=%00'), 'v', /NUL/);
    await expectParameterError(await postQ(origin, undeclared, { params: { v: '\u0000' } }), 'v', /NUL/);
  });
});
