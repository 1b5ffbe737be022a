import { type Rules, exampleValue } from '../../../shared/parameters/index.ts';
import { bodySchema, runQueryBody } from './bodies.ts';
import { ref } from './components.ts';
import type { Endpoint } from './operations.ts';
import { type JsonSchema, type ParameterObject, paramsSchema, queryParameters } from './parameter-schema.ts';
import type { DiscoveredQuery } from './reachable.ts';

/**
 * The saved-query section of `/openapi.json`: `GET` and `POST /q/<name>` for
 * each query the caller reaches, typed from the published version's rules.
 * Built from `DiscoveredQuery`, which carries no SQL.
 */

export const SAVED_QUERIES_TAG = 'Saved queries';

/** One tag per collection, so a reference groups a collection's queries together. */
export const queryTag = (q: Pick<DiscoveredQuery, 'collection'>) => (q.collection ? `${SAVED_QUERIES_TAG}: ${q.collection}` : SAVED_QUERIES_TAG);

/**
 * The name as an operation-id fragment, one to one: ASCII letters, digits and
 * `_` stay; any other character becomes `-<hex code point>-` (so `-` itself
 * is `-2d-`). The same name always gives the same id, whoever asks.
 */
export const idFragment = (name: string) =>
  [...name].map((ch) => (/^[A-Za-z0-9_]$/.test(ch) ? ch : `-${ch.codePointAt(0)!.toString(16)}-`)).join('');

export const queryPath = (name: string) => `/q/${encodeURIComponent(name)}`;

const ROW_OPTIONS = ['Format', 'Page', 'PageSize', 'Timeout', 'Stream', 'DryRun', 'Version'].map((name) => ref('parameters', name));

function describe(q: DiscoveredQuery, rules: Rules): string {
  const lines = [q.description ?? '', `Published version ${q.version}.`];
  if (q.connectionName === null) lines.push('The query has no default connection: give connection_name.');
  if (q.cacheTtl !== null && q.cacheTtl > 0) lines.push(`Responses are cached for ${q.cacheTtl} s (ETag, If-None-Match).`);
  for (const [name, rule] of Object.entries(rules)) {
    if (rule.from_claim !== undefined) lines.push(`\`${name}\` comes from the caller's sign-in token (claim ${rule.from_claim}) and is not sent.`);
  }
  if (q.rules === null) lines.push('Its parameter definitions could not be read; parameters are not described.');
  const described = q.columns.filter((c) => c.description !== null);
  if (described.length > 0) lines.push(['Columns:', ...described.map((c) => `- \`${c.name}\`: ${c.description}`)].join('\n'));
  return lines.filter((line) => line !== '').join('\n\n');
}

const connectionParameter = (q: DiscoveredQuery): ParameterObject | { $ref: string } =>
  q.connectionName === null
    ? { name: 'connection_name', in: 'query', required: true, description: 'The query has no default connection', schema: { type: 'string', minLength: 1 } }
    : ref('parameters', 'ConnectionName');

function postBody(q: DiscoveredQuery, rules: Rules): { schema: JsonSchema; required: boolean } {
  const base = bodySchema(runQueryBody) as { properties: Record<string, JsonSchema>; required?: string[] };
  const params = paramsSchema(rules, q.undeclared);
  const required = [...(params.required ? ['params'] : []), ...(q.connectionName === null ? ['connection_name'] : [])];
  const example = Object.fromEntries(
    Object.entries(rules)
      .filter(([, rule]) => rule.from_claim === undefined && rule.required)
      .map(([name, rule]) => [name, exampleValue(rule)] as const)
      .filter(([, value]) => value !== null),
  );
  return {
    schema: {
      ...base,
      properties: { ...base.properties, params: { ...params, description: 'Parameter values, typed JSON', examples: [example] } },
      ...(required.length > 0 ? { required } : {}),
    },
    required: required.length > 0,
  };
}

/** `GET` and `POST /q/<name>` of one query. */
export function savedQueryEndpoints(q: DiscoveredQuery): Endpoint[] {
  const rules = q.rules ?? {};
  const path = queryPath(q.name);
  const description = describe(q, rules);
  const common = { path, tag: queryTag(q), description, family: 'query' as const };
  const rows = { 200: ref('responses', 'Rows'), 304: { description: 'Not modified: the cached answer matches If-None-Match' } };
  return [
    {
      ...common,
      method: 'get',
      id: `getQ_${idFragment(q.name)}`,
      summary: `Run ${q.name}: parameters in the query string`,
      parameters: [...queryParameters(rules, q.undeclared), connectionParameter(q), ...ROW_OPTIONS],
      responses: rows,
    },
    {
      ...common,
      method: 'post',
      id: `postQ_${idFragment(q.name)}`,
      summary: `Run ${q.name}: parameters in a JSON body`,
      // The query string may carry the request options; parameters go in the body.
      parameters: [...ROW_OPTIONS, ref('parameters', 'ConnectionName')],
      body: postBody(q, rules),
      responses: rows,
    },
  ];
}
