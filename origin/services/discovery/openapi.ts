import { authenticationRequired } from '../../access/reachability.ts';
import type { AppDeps } from '../../deps.ts';
import type { Caller } from '../../access/caller.ts';
import { components } from './components.ts';
import { type Endpoint, pathsOf } from './operations.ts';
import type { JsonSchema } from './parameter-schema.ts';
import { discoverQueries } from './reachable.ts';
import { SAVED_QUERIES_TAG, queryTag, savedQueryEndpoints } from './saved-query-paths.ts';
import { STATIC_ENDPOINTS, STATIC_TAGS } from './static-paths.ts';

/**
 * `GET /openapi.json`: an OpenAPI 3.1 document of this server as `baseUrl`
 * reached it. The fixed endpoints are the same for everyone; the saved-query
 * section lists the published queries the caller reaches (none for an
 * anonymous caller on a server with a key) and never holds SQL text. The
 * Management API (`/api/v1`, administrators only) is passed in as its
 * routes declare it: the transport floor holds those declarations.
 */
export async function openApiDocument(
  deps: AppDeps,
  caller: Caller,
  baseUrl: string,
  management: { tags: Array<{ name: string; description: string }>; endpoints: Endpoint[] },
): Promise<JsonSchema> {
  const queries = await discoverQueries(deps, caller);
  const queryTags = [...new Set(queries.map(queryTag))].sort();
  const document: JsonSchema = {
    openapi: '3.1.0',
    info: {
      title: 'Sluice',
      version: deps.version,
      description:
        'SQL and saved queries served as HTTP APIs. Query endpoints answer errors as {error}; the Management API (/api/v1) as {error, code, request_id}.',
    },
    servers: [{ url: baseUrl }],
    tags: [
      ...STATIC_TAGS,
      ...queryTags.map((name) => ({ name, description: name === SAVED_QUERIES_TAG ? 'Saved queries in no collection' : `Saved queries of collection ${name.slice(SAVED_QUERIES_TAG.length + 2)}` })),
      ...management.tags,
    ],
    paths: pathsOf([...STATIC_ENDPOINTS, ...queries.flatMap(savedQueryEndpoints), ...management.endpoints]),
    components: components(),
  };
  // With no key configured every endpoint answers without one.
  if (authenticationRequired(caller)) document.security = [{ ApiKey: [] }];
  return document;
}
