import { createEdgeApp } from './app.ts';

/**
 * The edge Worker (wrangler.toml `main`): the app, and the Durable Object
 * classes its bindings name.
 */
export { ReplicaObject } from './replica/object.ts';
export { RateLimiterObject } from './rate-limit/object.ts';

export default createEdgeApp();
