import { SluiceError } from '../../errors.ts';

/** Attribute values a span takes; an undefined one is left off. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export type SpanKind = 'internal' | 'client' | 'server';

/**
 * A span as the origin's code sees it, whatever records it: the SDK's when
 * tracing is on (tracing/sdk.ts), `NO_SPAN` otherwise, whose every call does
 * nothing, so code that traces costs nothing when tracing is off. Spans are
 * handed down explicitly (a request's scope carries its span), never found
 * through an AsyncLocalStorage (ADR 0015).
 */
export interface TraceSpan {
  /** 32 hex characters; empty when nothing is traced. */
  readonly traceId: string;
  /** 16 hex characters; empty when nothing is traced. */
  readonly spanId: string;
  readonly sampled: boolean;
  /** A span under this one, started now. */
  child(name: string, attributes?: SpanAttributes, kind?: SpanKind): TraceSpan;
  set(attributes: SpanAttributes): void;
  rename(name: string): void;
  /** Marks it failed with a Sluice error code (`error.type`); no message, which could carry a value or a secret. */
  fail(code: string): void;
  end(): void;
}

export const NO_SPAN: TraceSpan = Object.freeze({
  traceId: '',
  spanId: '',
  sampled: false,
  child: () => NO_SPAN,
  set: () => {},
  rename: () => {},
  fail: () => {},
  end: () => {},
});

/** Runs `work` under a child span of `parent`, ended when it settles and failed with the code of what it throws. */
export async function inSpan<T>(parent: TraceSpan, name: string, attributes: SpanAttributes | undefined, work: (span: TraceSpan) => Promise<T>): Promise<T> {
  return parent === NO_SPAN ? work(NO_SPAN) : spanned(parent.child(name, attributes), work);
}

/** Runs `work` in `span`, made by the caller: ended when it settles, failed with the code of what it throws. */
export async function spanned<T>(span: TraceSpan, work: (span: TraceSpan) => Promise<T>): Promise<T> {
  try {
    return await work(span);
  } catch (err) {
    span.fail(errorCode(err));
    throw err;
  } finally {
    span.end();
  }
}

/** The Sluice code of an error (`SluiceError.code`), else `internal_error`. */
export function errorCode(err: unknown): string {
  return err instanceof SluiceError ? err.code : 'internal_error';
}
