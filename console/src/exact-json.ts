/**
 * A JSON number as the server wrote it. The API writes 64-bit integers and
 * decimals exactly (`9007199254740993`, `10.50`); a JS double would show
 * `…992` and `10.5`, so the console keeps the text and never does arithmetic
 * on it.
 */
export class JsonNumber {
  constructor(readonly source: string) {}
  toString(): string {
    return this.source;
  }
  /** Written back as the same digits (JSON.rawJSON), so an object or array cell shows them too. */
  toJSON(): unknown {
    const raw = (JSON as { rawJSON?: (text: string) => unknown }).rawJSON;
    return raw ? raw(this.source) : Number(this.source);
  }
}

/** JSON.parse with every number as a JsonNumber of its source text (the reviver's `context.source`, which Chromium gives). */
export function parseExact(text: string): unknown {
  return JSON.parse(text, (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' ? new JsonNumber(context?.source ?? String(value)) : value,
  );
}

/** A value as text: a number's own digits, an object or array as its JSON with the same digits. */
export const exactText = (value: unknown): string =>
  value !== null && typeof value === 'object' && !(value instanceof JsonNumber) ? JSON.stringify(value) : String(value);
