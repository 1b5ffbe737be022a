import { type Endpoint, jsonBody } from '../../services/discovery/operations.ts';
import type { Resource, RouteContract } from './contract.ts';

/** `/:name/versions/:version` as OpenAPI writes it, `/{name}/versions/{version}`; the resource's own `/` is its base. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z_]\w*)/g, '{$1}').replace(/\/$/, '');

function documentedBody(route: RouteContract): Endpoint['body'] {
  if (route.document) return jsonBody(route.document);
  return route.body ? jsonBody(route.body, route.emptyBody !== 'optional') : undefined;
}

/** The Management API's operations in `/openapi.json`, from the routes' contracts. */
export function endpointsOf(resources: readonly Resource[]): Endpoint[] {
  return resources.flatMap((resource) =>
    resource.routes.map((route) => ({
      method: route.method,
      path: resource.base + openApiPath(route.path),
      id: route.id,
      tag: resource.tag.name,
      summary: route.summary,
      family: 'management' as const,
      body: documentedBody(route),
      parameters: route.parameters,
      responses: route.responses,
    })),
  );
}

/** Their tags, each once, in the order the resources come. */
export function tagsOf(resources: readonly Resource[]): Resource['tag'][] {
  const tags = new Map(resources.map((resource) => [resource.tag.name, resource.tag]));
  return [...tags.values()];
}
