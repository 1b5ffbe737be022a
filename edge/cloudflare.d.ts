/**
 * The few Workers runtime APIs the edge uses, declared here so the project
 * type-checks with one tsconfig (DOM lib) and no extra type package: Durable
 * Objects (with RPC stubs), the execution context and `caches.default`.
 */
declare module 'cloudflare:workers' {
  export interface DurableObjectId {
    toString(): string;
  }

  export interface DurableObjectStorage {
    get<T = unknown>(key: string): Promise<T | undefined>;
    list<T = unknown>(options?: { prefix?: string }): Promise<Map<string, T>>;
    put<T>(key: string, value: T): Promise<void>;
    put<T>(entries: Record<string, T>): Promise<void>;
    delete(keys: string[]): Promise<number>;
    deleteAll(): Promise<void>;
    setAlarm(scheduledTime: number): Promise<void>;
  }

  export interface DurableObjectState {
    readonly id: DurableObjectId;
    readonly storage: DurableObjectStorage;
    blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
  }

  export abstract class DurableObject<Env = unknown> {
    protected ctx: DurableObjectState;
    protected env: Env;
    constructor(ctx: DurableObjectState, env: Env);
  }

  /** An RPC stub: the object's public methods, each answering a promise. */
  export type DurableObjectStub<T> = {
    [K in keyof T as T[K] extends (...args: never[]) => unknown ? K : never]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
  };

  export interface DurableObjectNamespace<T> {
    idFromName(name: string): DurableObjectId;
    get(id: DurableObjectId): DurableObjectStub<T>;
  }

  export interface ExecutionContext {
    waitUntil(promise: Promise<unknown>): void;
  }
}

interface CacheStorage {
  /** The Workers cache of the zone the Worker serves. */
  readonly default: Cache;
}
