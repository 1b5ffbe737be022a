import { describe, expect, it } from 'vitest';
import { byteRange } from '../../origin/http/byte-range.ts';

/** `Range: bytes=…` as a chunk link reads it (RFC 9110): one range, clamped to the file; anything else sends the whole file. */
describe('byteRange', () => {
  it.each([
    ['bytes=100-199', 1000, [100, 199]],
    ['bytes=100-', 1000, [100, 999]],
    ['bytes=-100', 1000, [900, 999]],
    ['bytes=-5000', 1000, [0, 999]],
    ['bytes=900-5000', 1000, [900, 999]],
    ['bytes=0-0', 1, [0, 0]],
    [' bytes=1-2 ', 10, [1, 2]],
  ] as const)('%j of %i bytes: %j', (header, size, range) => {
    expect(byteRange(header, size)).toEqual(range);
  });

  it.each([
    ['bytes=1000-', 1000],
    ['bytes=5-4', 1000],
    ['bytes=-0', 1000],
    ['bytes=0-', 0],
    ['bytes=-1', 0],
  ] as const)('%j of %i bytes is unsatisfiable (416)', (header, size) => {
    expect(byteRange(header, size)).toBe('unsatisfiable');
  });

  it.each([undefined, '', 'bytes=-', 'bytes=1-2,5-6', 'items=1-2', 'bytes=a-b'])('%j: none, the whole file', (header) => {
    expect(byteRange(header, 1000)).toBeNull();
  });
});
