import type { z } from 'zod';
import { bodySchema } from './bodies.ts';
import { ref } from './components.ts';
import type { JsonSchema, ParameterObject } from './parameter-schema.ts';

/**
 * One documented operation, written compactly: `operation()` expands it into
 * an OpenAPI operation with its path parameters (from `{…}` in the path), the
 * error responses of its route family and, for public ones, no security.
 */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface Endpoint {
  method: Method;
  /** OpenAPI form: `/api/v1/queries/{name}`. */
  path: string;
  /** Unique and stable: clients generate method names from it. */
  id: string;
  tag: string;
  summary: string;
  description?: string;
  /** Answers without a key (the spec's public endpoints). */
  public?: boolean;
  /** A route kept for compatibility with a successor: it answers with `Deprecation` and `Link` headers. */
  deprecated?: boolean;
  /** Query-string and header parameters, or `$ref`s to shared ones. */
  parameters?: Array<ParameterObject | { $ref: string }>;
  body?: { schema: JsonSchema; required: boolean };
  /** Default: 200 with a JSON object. */
  responses?: Record<string, unknown>;
  /** `{error}` on query routes, `{error, code, request_id}` on `/api/v1`. */
  family: 'query' | 'management';
}

/** A request body from a route's zod schema. */
export const jsonBody = (schema: z.ZodType, required = true) => ({ schema: bodySchema(schema), required });

export const queryParam = (name: string, schema: JsonSchema, description?: string, required = false): ParameterObject => ({
  name,
  in: 'query',
  required,
  schema,
  ...(description ? { description } : {}),
});

export const IF_MATCH: ParameterObject = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: 'The ETag last read; 412 precondition_failed when the object changed meanwhile',
  schema: { type: 'string' },
};

const PATH_PARAMETER_SCHEMAS: Record<string, JsonSchema> = {
  version: { type: 'integer', minimum: 1 },
};

function pathParameters(path: string): ParameterObject[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: PATH_PARAMETER_SCHEMAS[name] ?? { type: 'string' },
  }));
}

/** The OpenAPI operation object of an endpoint. */
export function operation(endpoint: Endpoint): JsonSchema {
  const error = ref('responses', endpoint.family === 'query' ? 'QueryError' : 'ManagementError');
  const op: JsonSchema = {
    operationId: endpoint.id,
    tags: [endpoint.tag],
    summary: endpoint.summary,
  };
  if (endpoint.description) op.description = endpoint.description;
  const parameters = [...pathParameters(endpoint.path), ...(endpoint.parameters ?? [])];
  if (parameters.length > 0) op.parameters = parameters;
  if (endpoint.body) {
    op.requestBody = { required: endpoint.body.required, content: { 'application/json': { schema: endpoint.body.schema } } };
  }
  op.responses = { ...(endpoint.responses ?? { 200: ref('responses', 'Json') }), '4XX': error, '5XX': error };
  if (endpoint.public) op.security = [];
  if (endpoint.deprecated) op.deprecated = true;
  return op;
}

/** `paths` of the OpenAPI document from endpoints (several methods may share a path). */
export function pathsOf(endpoints: Endpoint[]): Record<string, Record<string, JsonSchema>> {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const endpoint of endpoints) (paths[endpoint.path] ??= {})[endpoint.method] = operation(endpoint);
  return paths;
}
