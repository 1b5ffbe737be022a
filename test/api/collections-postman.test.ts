import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Origin, startOrigin } from '../harness/origin.ts';
import { collectionAt } from './collections-fixtures.ts';
import { API, at } from './queries-fixtures.ts';
import { expectError } from '../harness/expect-error.ts';
import { unique } from '../harness/unique.ts';

/**
 * `GET /api/v1/collections/{name}/postman`: the file's shape, rule by rule,
 * then the file run by newman (the Postman command-line runner) against the
 * live origin, every request answering 2xx.
 */

interface Execution {
  item: { name: string };
  request: { url: { toString(): string } };
  response?: { code: number; stream?: Buffer };
  requestError?: Error;
}
interface NewmanSummary {
  run: { executions: Execution[] };
}
const newman = createRequire(import.meta.url)('newman') as {
  run(options: Record<string, unknown>, done: (err: Error | null, summary: NewmanSummary) => void): unknown;
};

function runNewman(collection: unknown, envVar: Array<{ key: string; value: string }>): Promise<Execution[]> {
  return new Promise((resolve, reject) => {
    newman.run({ collection, envVar, timeoutRequest: 30_000 }, (err, summary) => (err ? reject(err) : resolve(summary.run.executions)));
  });
}

const KEY = 'collections-postman-key-0123456789';
const SCHEMA = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';

let origin: Origin;
const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  origin.call(method, path, body, { 'x-api-key': KEY, ...headers });

const tag = unique('p').slice(2);
const P = `pm-${tag}`;
const DRAFTS_ONLY = `pm-drafts-${tag}`;
const LENGTH = `pm length ${tag}`;
const RATING = `pm rating ${tag}`;
const DOMAIN = `pm email.domain ${tag}`;
const ACTIVE = `pm active ${tag}`;
const PRICE = `pm price ${tag}`;
const ANY = `pm any ${tag}`;
const ECHO = `pm echo ${tag}`;
const AWKWARD = 'a+b & c/d=é%';
const UNDECLARED = `pm undeclared ${tag}`;
const NO_DEFAULT = `pm no default ${tag}`;
const DRAFT = `pm draft ${tag}`;
const ELSEWHERE = `pm elsewhere ${tag}`;
const PUBLISHED = [ACTIVE, ANY, DOMAIN, ECHO, LENGTH, NO_DEFAULT, PRICE, RATING, UNDECLARED].sort();
const DOMAIN_PATTERN = '^[a-z]+\\.[a-z]{2,3}$';

async function create(name: string, body: Record<string, unknown>, collection = P) {
  const res = await call('POST', API, { name, collection, connection_name: 'examples', publish: true, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

beforeAll(async () => {
  origin = await startOrigin({ env: { SLUICE_API_KEY: KEY } });
  await create(LENGTH, {
    sql: 'select title from films where length_minutes between :min_len and :max_len order by id',
    parameters: { min_len: { type: 'int', min: 60, max: 240, description: 'Shortest film, minutes' }, max_len: { type: 'int', default: 300 } },
    description: 'Films by length',
  });
  await create(RATING, { sql: 'select title from films where rating = :rating', parameters: { rating: { type: 'str', enum: ['PG-13', 'R', 'G'] } } });
  // A newer draft changes the parameters: the file follows the published version.
  const draft = await call('POST', `${at(RATING)}/versions`, { sql: 'select title from films where id = :id', parameters: { id: 'int' }, connection_name: 'examples' });
  expect(draft.status).toBe(201);
  await create(DOMAIN, {
    sql: "select first_name from customers where email like '%' || :domain",
    parameters: { domain: { type: 'str', pattern: DOMAIN_PATTERN } },
  });
  await create(ACTIVE, { sql: 'select count(*) as n from customers where active = :active', parameters: { active: 'bool' } });
  await create(PRICE, {
    sql: 'select title from films where price >= :min_price and length_minutes >= :min_len',
    parameters: { min_price: { type: 'float', min: 0.5 }, min_len: { type: 'int', required: false, default: 0 } },
  });
  await create(ANY, { sql: 'select :anything as echo', parameters: { anything: { min_length: 3 } } });
  await create(ECHO, { sql: 'select :label as label', parameters: { label: { type: 'str', enum: [AWKWARD, 'plain'] } } });
  await create(UNDECLARED, { sql: 'select :who as who', parameters: {} });
  await create(NO_DEFAULT, { sql: 'select count(*) as n from genres', connection_name: null });
  await create(DRAFT, { sql: 'select 1 as one', publish: false });
  await create(ELSEWHERE, { sql: 'select 1 as one' }, `pm-other-${tag}`);
  await create(`pm only draft ${tag}`, { sql: 'select 1 as one', publish: false }, DRAFTS_ONLY);
});

afterAll(async () => {
  await origin?.stop();
});

const postman = async (name = P, headers: Record<string, string> = {}) => {
  const res = await call('GET', `${collectionAt(name)}/postman`, undefined, headers);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
};
const itemOf = (file: any, name: string) => file.item.find((i: any) => i.name === name);
const entries = (file: any, name: string) =>
  Object.fromEntries(itemOf(file, name).request.url.query.map((q: any) => [q.key, { value: q.value, disabled: q.disabled }]));
const OPTIONS_OFF = {
  format: { value: 'json', disabled: true },
  page: { value: '1', disabled: true },
  page_size: { value: '10', disabled: true },
};

describe('the file', () => {
  let file: any;

  it('is a Postman v2.1 collection of the published queries, skipping the rest and saying so', async () => {
    const res = await postman();
    file = res.body;
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${P}.postman_collection.json"`);
    expect(file.info).toEqual({ name: P, description: expect.any(String), schema: SCHEMA });
    expect(file.item.map((i: any) => i.name)).toEqual(PUBLISHED);
    expect(file.info.description).toContain(`Skipped, not published: ${DRAFT}.`);
    expect(JSON.stringify(file)).not.toContain(ELSEWHERE);
  });

  it('has one GET {{baseUrl}}/q/<url-encoded name> per query, every entry with key, value, disabled and description', () => {
    for (const item of file.item) {
      const { method, url } = item.request;
      expect(method).toBe('GET');
      expect(url.host).toEqual(['{{baseUrl}}']);
      expect(url.path).toEqual(['q', encodeURIComponent(item.name)]);
      const on = url.query.filter((q: any) => !q.disabled).map((q: any) => `${q.key}=${q.value}`);
      expect(url.raw).toBe(`{{baseUrl}}/q/${encodeURIComponent(item.name)}${on.length ? `?${on.join('&')}` : ''}`);
      for (const q of url.query) {
        expect(Object.keys(q).sort()).toEqual(['description', 'disabled', 'key', 'value']);
        expect(typeof q.disabled).toBe('boolean');
        expect(typeof q.description).toBe('string');
      }
    }
    expect(itemOf(file, DOMAIN).request.url.raw).toContain('/q/pm%20email.domain%20');
  });

  it('turns required parameters on with an example that satisfies the rule, optional ones off; options always offered, off', () => {
    expect(entries(file, LENGTH)).toEqual({ min_len: { value: '60', disabled: false }, max_len: { value: '300', disabled: true }, ...OPTIONS_OFF });
    expect(entries(file, RATING)).toEqual({ rating: { value: 'PG-13', disabled: false }, ...OPTIONS_OFF });
    const domain = entries(file, DOMAIN).domain;
    expect(domain.disabled).toBe(false);
    expect(decodeURIComponent(domain.value)).toMatch(new RegExp(DOMAIN_PATTERN));
    expect(entries(file, ACTIVE)).toEqual({ active: { value: 'true', disabled: false }, ...OPTIONS_OFF });
    expect(entries(file, PRICE)).toEqual({ min_price: { value: '1', disabled: false }, min_len: { value: '0', disabled: true }, ...OPTIONS_OFF });
    expect(entries(file, ANY).anything).toEqual({ value: 'example', disabled: false });
    expect(entries(file, ECHO).label).toEqual({ value: encodeURIComponent(AWKWARD), disabled: false });
    expect(entries(file, UNDECLARED).who).toEqual({ value: 'example', disabled: false });
    const min = itemOf(file, LENGTH).request.url.query.find((q: any) => q.key === 'min_len');
    expect(min.description).toBe('Shortest film, minutes (integer; required; min 60; max 240)');
    expect(itemOf(file, LENGTH).request.description).toContain('Films by length');
  });

  it('gives a query with no default connection a connection_name entry, on, from the connectionName variable', () => {
    expect(entries(file, NO_DEFAULT)).toEqual({ connection_name: { value: '{{connectionName}}', disabled: false }, ...OPTIONS_OFF });
    for (const name of PUBLISHED.filter((n) => n !== NO_DEFAULT)) expect(entries(file, name).connection_name).toBeUndefined();
  });

  it('sends X-API-Key from the empty apiKey variable; baseUrl is the server as requested; no credential is written', async () => {
    expect(file.auth).toEqual({
      type: 'apikey',
      apikey: [
        { key: 'key', value: 'X-API-Key', type: 'string' },
        { key: 'value', value: '{{apiKey}}', type: 'string' },
        { key: 'in', value: 'header', type: 'string' },
      ],
    });
    const variables = Object.fromEntries(file.variable.map((v: any) => [v.key, v.value]));
    expect(variables).toEqual({ baseUrl: origin.url, apiKey: '', connectionName: '' });
    expect(JSON.stringify(file)).not.toContain(KEY);
    // Forwarded headers are not honoured.
    const forwarded = await postman(P, { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', forwarded: 'host=evil.example' });
    expect(forwarded.body.variable.find((v: any) => v.key === 'baseUrl').value).toBe(origin.url);
  });

  it('is empty for a collection of unpublished queries, and 404 for an unknown one', async () => {
    const drafts = (await postman(DRAFTS_ONLY)).body;
    expect(drafts.item).toEqual([]);
    expect(drafts.info.description).toContain(`Skipped, not published: pm only draft ${tag}.`);
    expect(drafts.variable.map((v: any) => v.key)).toEqual(['baseUrl', 'apiKey']);
    expectError(await call('GET', `${collectionAt(`pm-none-${tag}`)}/postman`), 404, 'collection_not_found');
  });
});

describe('run by newman', () => {
  it('answers every request 2xx', async () => {
    const file = (await postman()).body;
    const executions = await runNewman(file, [
      { key: 'baseUrl', value: origin.url },
      { key: 'apiKey', value: KEY },
      { key: 'connectionName', value: 'examples' },
    ]);
    expect(executions.map((e) => e.item.name)).toEqual(PUBLISHED);
    for (const e of executions) {
      expect(e.requestError, e.item.name).toBeUndefined();
      const detail = `${e.item.name} ${e.request.url.toString()}: ${e.response?.stream?.toString()}`;
      expect(e.response!.code, detail).toBeGreaterThanOrEqual(200);
      expect(e.response!.code, detail).toBeLessThan(300);
    }
    const execution = (name: string) => executions.find((e) => e.item.name === name)!;
    const body = (name: string) => execution(name).response!.stream!.toString();
    expect(JSON.parse(body(UNDECLARED))).toEqual([{ who: 'example' }]);
    // Encoded in the file, the text arrives as it was saved: `+`, `&`, `/`, spaces and accents included.
    expect(JSON.parse(body(ECHO))).toEqual([{ label: AWKWARD }]);
    expect(execution(NO_DEFAULT).request.url.toString()).toContain('connection_name=examples');
  });

  it('is refused without an API key: the header comes from the apiKey variable', async () => {
    const executions = await runNewman((await postman()).body, [{ key: 'connectionName', value: 'examples' }]);
    expect(executions.map((e) => e.response?.code)).toEqual(PUBLISHED.map(() => 401));
  });
});
