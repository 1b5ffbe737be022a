import { describe, expect, it } from 'vitest';
import { FORMATS, serializerFor } from '../../origin/formats/index.ts';
import { FORMAT_MEDIA_TYPES } from '../../origin/services/discovery/components.ts';
import { paramsSchema, queryParameters, ruleSchema } from '../../origin/services/discovery/parameter-schema.ts';
import { idFragment } from '../../origin/services/discovery/saved-query-paths.ts';
import { type Rules, parseDefinitions } from '../../shared/parameters/index.ts';

/** Parameter rules as OpenAPI (JSON Schema 2020-12), the operation-id fragment, the format media types. */

function rules(definitions: Record<string, unknown>): Rules {
  const parsed = parseDefinitions(definitions);
  if ('errors' in parsed) throw new Error(JSON.stringify(parsed.errors));
  return parsed.rules;
}
const rule = (definition: unknown) => rules({ p: definition }).p;

describe('ruleSchema', () => {
  it('maps type names and their aliases to JSON Schema types', () => {
    for (const [name, type] of [['int', 'integer'], ['integer', 'integer'], ['float', 'number'], ['number', 'number'], ['str', 'string'], ['string', 'string'], ['bool', 'boolean'], ['boolean', 'boolean']]) {
      expect(ruleSchema(rule(name))).toEqual({ type });
    }
  });

  it('types an untyped rule by what its rules imply, else as any single value', () => {
    expect(ruleSchema(rule({ min: 0 }))).toEqual({ type: 'number', minimum: 0 });
    expect(ruleSchema(rule({ max_length: 3 }))).toEqual({ type: 'string', maxLength: 3 });
    expect(ruleSchema(rule({ required: false }))).toEqual({ type: ['string', 'number', 'boolean', 'null'] });
  });

  it('carries every constraint, the default and the description', () => {
    expect(ruleSchema(rule({ type: 'int', min: 1, max: 9, default: 5, description: 'Count' }))).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 9,
      default: 5,
      description: 'Count',
    });
    expect(ruleSchema(rule({ type: 'str', enum: ['a', 'b'], min_length: 1, max_length: 2 }))).toEqual({
      type: 'string',
      enum: ['a', 'b'],
      minLength: 1,
      maxLength: 2,
    });
  });

  it('anchors the pattern as it is applied (to the whole value)', () => {
    expect(ruleSchema(rule({ type: 'str', pattern: '[a-z]+' })).pattern).toBe('^[a-z]+$');
    expect(ruleSchema(rule({ type: 'str', pattern: 'a|b' })).pattern).toBe('^(?:a|b)$');
    expect(ruleSchema(rule({ type: 'str', pattern: '^x\\d$' })).pattern).toBe('^x\\d$');
  });

  it("leaves out a pattern in RE2's own syntax, which a JSON Schema (ECMA-262) validator cannot compile", () => {
    for (const pattern of ['(?i)abc', '[[:alpha:]]+', '\\x{20AC}', '\\pL+', '(?P<n>a)']) {
      expect(ruleSchema(rule({ type: 'str', pattern, min_length: 1 }))).toEqual({ type: 'string', minLength: 1 });
    }
    expect(ruleSchema(rule({ type: 'str', pattern: '\\p{L}+' })).pattern).toBe('^\\p{L}+$');
  });
});

describe('queryParameters (GET) and paramsSchema (POST)', () => {
  const defined = rules({
    id: { type: 'int', description: 'Id' },
    limit: { type: 'int', default: 10 },
    note: { type: 'str', required: false },
    who: { from_claim: 'email' },
  });

  it('gives one query parameter per rule, required as the rule says, with an example', () => {
    expect(queryParameters(defined, [])).toEqual([
      { name: 'id', in: 'query', required: true, description: 'Id', example: 1, schema: { type: 'integer', description: 'Id' } },
      { name: 'limit', in: 'query', required: false, example: 10, schema: { type: 'integer', default: 10 } },
      { name: 'note', in: 'query', required: false, example: 'example', schema: { type: 'string' } },
    ]);
  });

  it('adds undeclared markers as required text, except names the request options take', () => {
    const params = queryParameters({}, ['extra', 'format', 'page']);
    expect(params.map((p) => [p.name, p.required, p.schema])).toEqual([['extra', true, { type: 'string' }]]);
  });

  it('gives the POST params object its properties and required names', () => {
    expect(paramsSchema(defined, ['extra'])).toEqual({
      type: 'object',
      properties: {
        id: { type: 'integer', description: 'Id' },
        limit: { type: 'integer', default: 10 },
        note: { type: 'string' },
        extra: { type: ['string', 'number', 'boolean', 'null'], description: expect.any(String) },
      },
      required: ['id', 'extra'],
    });
    expect(paramsSchema({}, [])).toEqual({ type: 'object', properties: {} });
  });

  it('keeps a parameter named __proto__ as a property', () => {
    const schema = paramsSchema(rules(JSON.parse('{"__proto__": "int"}')), []) as { properties: Record<string, unknown> };
    expect(Object.hasOwn(schema.properties, '__proto__')).toBe(true);
    expect(JSON.parse(JSON.stringify(schema)).properties.__proto__).toEqual({ type: 'integer' });
  });
});

describe('idFragment', () => {
  it('keeps letters, digits and _ and spells any other character by its code point', () => {
    expect(idFragment('top_films')).toBe('top_films');
    expect(idFragment('Top films')).toBe('Top-20-films');
    expect(idFragment('a.b-c')).toBe('a-2e-b-2d-c');
    expect(idFragment('café')).toBe('caf-e9-');
  });

  it('never gives two names the same id', () => {
    const names = ['a b', 'a_b', 'a-b', 'a.b', 'a-20-b', 'a--b', 'ab', 'a  b', 'é', 'e'];
    expect(new Set(names.map(idFragment)).size).toBe(names.length);
  });
});

describe('FORMAT_MEDIA_TYPES', () => {
  it("matches each serializer's content type", async () => {
    for (const format of FORMATS) {
      const serializer = await serializerFor(format);
      expect(serializer.contentType.split(';')[0], format).toBe(FORMAT_MEDIA_TYPES[format]);
    }
  });
});
