import { ROOT_CONTEXT } from '@opentelemetry/api';
import { SamplingDecision, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { formatTraceparent, otlpPairs, otlpTracesUrl, parseTraceparent, randomHexId, sampledByRatio } from '../../../shared/tracing/trace-context.ts';

/** W3C Trace Context as the edge reads and writes it (shared/tracing/trace-context.ts). */

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('traceparent', () => {
  it.each([
    [`00-${TRACE}-${SPAN}-01`, { traceId: TRACE, spanId: SPAN, sampled: true }],
    [`00-${TRACE}-${SPAN}-00`, { traceId: TRACE, spanId: SPAN, sampled: false }],
    // Other flag bits are not the sampled bit.
    [`00-${TRACE}-${SPAN}-02`, { traceId: TRACE, spanId: SPAN, sampled: false }],
    // A later version's extra fields are ignored.
    [`01-${TRACE}-${SPAN}-01-whatever`, { traceId: TRACE, spanId: SPAN, sampled: true }],
    [`  00-${TRACE}-${SPAN}-01  `, { traceId: TRACE, spanId: SPAN, sampled: true }],
  ])('reads %s', (header, context) => {
    expect(parseTraceparent(header)).toEqual(context);
  });

  it.each([
    undefined,
    '',
    `ff-${TRACE}-${SPAN}-01`,
    `00-${TRACE}-${SPAN}-01-extra`,
    `00-${'0'.repeat(32)}-${SPAN}-01`,
    `00-${TRACE}-${'0'.repeat(16)}-01`,
    `00-${TRACE.toUpperCase()}-${SPAN}-01`,
    `00-${TRACE.slice(1)}-${SPAN}-01`,
    `00-${TRACE}-${SPAN}`,
  ])('names no context in %s', (header) => {
    expect(parseTraceparent(header)).toBeNull();
  });

  it('writes what it reads', () => {
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, sampled: true })).toBe(`00-${TRACE}-${SPAN}-01`);
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, sampled: false })).toBe(`00-${TRACE}-${SPAN}-00`);
  });

  it('makes random ids of the sizes asked, never all zero', () => {
    expect(randomHexId(16)).toMatch(/^[0-9a-f]{32}$/);
    expect(randomHexId(8)).toMatch(/^[0-9a-f]{16}$/);
    expect(randomHexId(16)).not.toBe(randomHexId(16));
  });
});

describe('sampling by ratio', () => {
  it('decides every trace id as the SDK\'s traceidratio sampler does', () => {
    for (const ratio of [0, 0.1, 0.5, 0.9, 1]) {
      const sdk = new TraceIdRatioBasedSampler(ratio);
      for (let i = 0; i < 500; i++) {
        const traceId = randomHexId(16);
        const decision = sdk.shouldSample(ROOT_CONTEXT, traceId).decision;
        expect(sampledByRatio(traceId, ratio), `${traceId} at ${ratio}`).toBe(decision === SamplingDecision.RECORD_AND_SAMPLED);
      }
    }
  });
});

describe('the OTLP variables both runtimes read', () => {
  it('sends spans to the traces endpoint as written, else to /v1/traces under the base one', () => {
    expect(otlpTracesUrl('http://c:4318/custom', 'http://other:4318')).toBe('http://c:4318/custom');
    expect(otlpTracesUrl(undefined, 'http://c:4318')).toBe('http://c:4318/v1/traces');
    expect(otlpTracesUrl(undefined, 'http://c:4318/base/')).toBe('http://c:4318/base/v1/traces');
    expect(otlpTracesUrl(undefined, undefined)).toBeNull();
  });

  it('reads name=value lists with URL-encoded values, naming a value that is not', () => {
    expect(otlpPairs(' authorization = Bearer%20abc ,x=1,=nameless,novalue,bad=%E0%A4%A')).toEqual([
      { name: 'authorization', value: 'Bearer abc', raw: 'Bearer%20abc' },
      { name: 'x', value: '1', raw: '1' },
      { name: 'bad', value: null, raw: '%E0%A4%A' },
    ]);
    expect(otlpPairs(undefined)).toEqual([]);
  });
});
