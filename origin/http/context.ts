import type { Env as HonoEnv } from 'hono';
import type { CallerAssertion } from '../../shared/edge/protocol.ts';
import type { AppDeps } from '../deps.ts';
import type { Caller } from '../access/caller.ts';
import type { TraceSpan } from '../observability/tracing/span.ts';

export interface AppEnv extends HonoEnv {
  Variables: {
    deps: AppDeps;
    requestId: string;
    caller: Caller;
    /** The client's address: the socket peer, or from X-Forwarded-For under SLUICE_TRUST_PROXY (http/client-address.ts). */
    clientIp: string;
    clientScheme: 'http' | 'https';
    /** The workspace a Management API call acts in: `default` unless the path is `/w/<workspace>/api/v1/...`. */
    workspace: string;
    /** True on a `/w/<workspace>/api/v1/...` path: lists show, and names find, only that workspace's objects. */
    workspaceScoped: boolean;
    /** Set on a request the edge forwarded, once its assertion verified (origin/http/edge-assertion.ts). */
    edge?: CallerAssertion;
    /** The request's server span, when tracing is on (http/trace-request.ts). */
    span?: TraceSpan;
    /** Set by a paged run once its page is serialised; the access line reports it. */
    serializationMs?: number;
  };
}
