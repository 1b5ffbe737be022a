/**
 * A bounded memo of a pure function of a text. Saved queries and clients
 * send the same few statements over and over; each text is worked on once.
 * Texts past `maxText` characters are not kept (computed every time), and
 * when `entries` texts are held the memo starts again empty: a bound on
 * memory, not a policy. Results are shared: they must be treated as read-only.
 */
export function memoByText<T>(compute: (text: string) => T, { entries = 1_000, maxText = 4_096 } = {}): (text: string) => T {
  const held = new Map<string, T>();
  return (text) => {
    if (text.length > maxText) return compute(text);
    let result = held.get(text);
    if (result === undefined) {
      if (held.size >= entries) held.clear();
      result = compute(text);
      held.set(text, result);
    }
    return result;
  };
}
