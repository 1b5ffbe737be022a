import { describe, expect, it } from 'vitest';
import { inspect } from '../../origin/sql/inspect.ts';
import { memoByText } from '../../origin/text-memo.ts';

describe('memoByText', () => {
  it('computes a text once, recomputes texts past the size bound, and starts again when full', () => {
    const calls: string[] = [];
    const memo = memoByText((text) => (calls.push(text), text.length), { entries: 2, maxText: 5 });
    expect([memo('ab'), memo('ab'), memo('abc')]).toEqual([2, 2, 3]);
    expect(calls).toEqual(['ab', 'abc']);
    expect([memo('toolong'), memo('toolong')]).toEqual([7, 7]);
    expect(calls.filter((t) => t === 'toolong')).toHaveLength(2);
    memo('x'); // a third text: the memo starts again with only it
    memo('ab');
    expect(calls.filter((t) => t === 'ab')).toHaveLength(2);
  });

  it('shares an inspection between callers, frozen so none can change it for the others', () => {
    const first = inspect('select :a, :b', 'postgres');
    expect(inspect('select :a, :b', 'postgres')).toBe(first);
    expect(inspect('select :a, :b', 'mysql')).not.toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.markers) && Object.isFrozen(first.writeOps)).toBe(true);
    expect(first.markers).toEqual(['a', 'b']);
  });
});
