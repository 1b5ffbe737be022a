import { FORMATS } from '../../formats/index.ts';
import { API_TYPE_NAMES, type ParameterRule, exampleValue, parseDefinitions } from '../../../shared/parameters/index.ts';

export const POSTMAN_SCHEMA = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';

/** The one published version of a query that the file calls. */
export interface PostmanQuery {
  name: string;
  version: number;
  description: string | null;
  connectionName: string | null;
  /** Parameter definitions as saved. */
  parameters: Record<string, unknown>;
  /** `:markers` the SQL uses without declaring them (required, passed through as given). */
  undeclared: string[];
}

export interface QueryParam {
  key: string;
  value: string;
  disabled: boolean;
  description: string;
}

interface Variable {
  key: string;
  value: string;
  type: 'string';
  description: string;
}

export interface PostmanItem {
  name: string;
  request: {
    method: 'GET';
    header: [];
    url: { raw: string; host: string[]; path: string[]; query: QueryParam[] };
    description: string;
  };
  response: [];
}

export interface PostmanCollection {
  info: { name: string; description: string; schema: string };
  item: PostmanItem[];
  auth: { type: 'apikey'; apikey: Array<{ key: string; value: string; type: 'string' }> };
  variable: Variable[];
}

/**
 * Where a query with no default connection gets its connection: its
 * `connection_name` entry is on, with this placeholder, and the collection
 * variable of that name starts empty (the request then answers 400 naming
 * the missing connection until it is set).
 */
export const CONNECTION_VARIABLE = 'connectionName';

/** Query-string text of a value: encoded here, so what Postman sends is what the server reads (`+`, `&`, `%` included). */
function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

const param = (key: string, value: string, disabled: boolean, description: string): QueryParam => ({ key, value, disabled, description });

/** What a rule asks for, in words: `integer; required; min 1; max 10`. */
export function ruleText(rule: ParameterRule): string {
  const parts = [rule.type ? API_TYPE_NAMES[rule.type] : 'any type', rule.required ? 'required' : 'optional'];
  if (rule.enum !== undefined) parts.push(`one of ${rule.enum.map(textOf).join(', ')}`);
  if (rule.min !== undefined) parts.push(`min ${rule.min}`);
  if (rule.max !== undefined) parts.push(`max ${rule.max}`);
  if (rule.min_length !== undefined) parts.push(`at least ${rule.min_length} characters`);
  if (rule.max_length !== undefined) parts.push(`at most ${rule.max_length} characters`);
  if (rule.pattern !== undefined) parts.push(`matching ${rule.pattern}`);
  if (rule.default !== undefined) parts.push(`default ${textOf(rule.default)}`);
  return rule.description ? `${rule.description} (${parts.join('; ')})` : parts.join('; ');
}

/** Entries for the query's own parameters, and notes for its description. */
function parameterEntries(query: PostmanQuery): { entries: QueryParam[]; notes: string[] } {
  const entries: QueryParam[] = [];
  const notes: string[] = [];
  const parsed = parseDefinitions(query.parameters);
  if ('errors' in parsed) {
    notes.push('Its saved parameter rules could not be read: every parameter is listed, on and empty.');
    for (const name of Object.keys(query.parameters)) entries.push(param(name, '', false, 'rule could not be read'));
  } else {
    for (const [name, rule] of Object.entries(parsed.rules)) {
      if (rule.from_claim !== undefined) {
        notes.push(`"${name}" comes from the caller's sign-in token (claim ${rule.from_claim}) and is not sent.`);
        continue;
      }
      const example = exampleValue(rule);
      let description = ruleText(rule);
      if (example === null) description += '. No example could be made: give a value matching the pattern';
      entries.push(param(name, encodeURIComponent(textOf(example)), !rule.required, description));
    }
  }
  for (const name of query.undeclared) {
    entries.push(param(name, encodeURIComponent(textOf(exampleValue({ required: true }))), false, 'used by the SQL without a rule: required, passed through as given'));
  }
  return { entries, notes };
}

/** The request options every query takes, off. */
function optionEntries(): QueryParam[] {
  return [
    param('format', 'json', true, `Response format: ${FORMATS.join(', ')} (default json)`),
    param('page', '1', true, 'Page number, from 1 (default 1)'),
    param('page_size', '10', true, "Rows per page (default 10, at most the server's limit)"),
  ];
}

export function postmanItem(query: PostmanQuery): PostmanItem {
  const { entries, notes } = parameterEntries(query);
  const params = [...entries];
  if (query.connectionName === null) {
    params.push(param('connection_name', `{{${CONNECTION_VARIABLE}}}`, false, `No default connection: the connection to run on (collection variable ${CONNECTION_VARIABLE})`));
    notes.push(`It has no default connection: set the ${CONNECTION_VARIABLE} variable.`);
  }
  params.push(...optionEntries());
  const path = ['q', encodeURIComponent(query.name)];
  const on = params.filter((entry) => !entry.disabled).map((entry) => `${entry.key}=${entry.value}`);
  const raw = `{{baseUrl}}/${path.join('/')}${on.length > 0 ? `?${on.join('&')}` : ''}`;
  const description = [query.description, `Runs the published version (${query.version}).`, ...notes].filter(Boolean).join('\n\n');
  return {
    name: query.name,
    request: { method: 'GET', header: [], url: { raw, host: ['{{baseUrl}}'], path, query: params }, description },
    response: [],
  };
}

/**
 * A Postman v2.1 collection: one GET `{{baseUrl}}/q/<name>` per published
 * query, its parameters as query-string entries (required ones on with an
 * example that satisfies the rule, optional ones off), `format`, `page` and
 * `page_size` offered off. The key travels in an `X-API-Key` header from the
 * `apiKey` variable, which is empty: no credential is written.
 */
export function postmanCollection(name: string, baseUrl: string, published: PostmanQuery[], unpublished: string[]): PostmanCollection {
  const lines = [
    `Saved queries of the Sluice collection "${name}": ${published.length} published.`,
    'Set the apiKey variable to an API key that reaches them; it is sent as the X-API-Key header.',
  ];
  if (unpublished.length > 0) lines.push(`Skipped, not published: ${unpublished.join(', ')}.`);
  const needsConnection = published.some((query) => query.connectionName === null);
  if (needsConnection) lines.push(`Queries with no default connection run on the connection named by the ${CONNECTION_VARIABLE} variable.`);
  const variable: Variable[] = [
    { key: 'baseUrl', value: baseUrl, type: 'string', description: 'The Sluice server' },
    { key: 'apiKey', value: '', type: 'string', description: 'Your API key, sent as X-API-Key (left empty in the file)' },
  ];
  if (needsConnection) {
    variable.push({ key: CONNECTION_VARIABLE, value: '', type: 'string', description: 'Connection for queries that have no default connection' });
  }
  return {
    info: { name, description: lines.join('\n\n'), schema: POSTMAN_SCHEMA },
    item: published.map(postmanItem),
    auth: {
      type: 'apikey',
      apikey: [
        { key: 'key', value: 'X-API-Key', type: 'string' },
        { key: 'value', value: '{{apiKey}}', type: 'string' },
        { key: 'in', value: 'header', type: 'string' },
      ],
    },
    variable,
  };
}
