import { describe, expect, it } from 'vitest';
import { validateOpenApi } from './openapi-checks.ts';

/** The checks `openapi.test.ts` relies on catch what they are meant to. */

const ok = { description: 'OK' };
const doc = (paths: Record<string, unknown>) => ({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths });

describe('validateOpenApi', () => {
  it('passes a sound document', async () => {
    const param = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
    expect(await validateOpenApi(doc({ '/a/{id}': { get: { operationId: 'a', parameters: [param], responses: { 200: ok } } } }))).toEqual([]);
  });

  it('finds duplicate operation ids, path parameter mismatches, repeated parameters and bad schemas', async () => {
    const query = { name: 'q', in: 'query', schema: { type: 'nope' } };
    const problems = await validateOpenApi(
      doc({
        '/a': { get: { operationId: 'x', responses: { 200: ok } } },
        '/b/{id}': { get: { operationId: 'x', parameters: [query, query], responses: { 200: ok } } },
      }),
    );
    expect(problems).toEqual([
      'GET /b/{id}: duplicate operationId x',
      'GET /b/{id}: parameters given twice: query:q',
      'GET /b/{id}: path parameters  for template id',
      expect.stringMatching(/^GET \/b\/\{id\} parameter q: /),
      expect.stringMatching(/^GET \/b\/\{id\} parameter q: /),
    ]);
  });

  it('rejects a document of the wrong structure', async () => {
    await expect(validateOpenApi({ openapi: '3.1.0', info: { title: 't' }, paths: {} })).rejects.toThrow();
  });
});
