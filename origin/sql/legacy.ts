import { badRequest } from '../errors.ts';

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** ASCII only: look-alike letters and quotes from other scripts have no business in SQL text. */
const PLAIN_TEXT = /^[A-Za-z0-9\s.,:@%+/-]*$/;

/**
 * Replaces legacy `{name}` placeholders with their values as raw text, before
 * any other analysis. Only values that cannot leave the token they are pasted
 * into are accepted: numbers, booleans, and plain text without quotes. Names
 * not in `values` stay as written.
 */
export function substituteLegacy(sql: string, values: Record<string, unknown>): string {
  const pasted: Array<{ name: string; start: number; end: number }> = [];
  let out = '';
  let at = 0;
  for (const match of sql.matchAll(PLACEHOLDER)) {
    const name = match[1];
    if (!Object.hasOwn(values, name)) continue;
    out += sql.slice(at, match.index);
    const text = legacyText(name, values[name]);
    pasted.push({ name, start: out.length, end: out.length + text.length });
    out += text;
    at = match.index + match[0].length;
  }
  out += sql.slice(at);
  // Next to a '-', a '*' or another value, pasted text could open a comment (`--`, `/*`) hiding the rest.
  for (const { name, start, end } of pasted) {
    const around = out.slice(Math.max(0, start - 1), end + 1);
    if (around.includes('--') || around.includes('/*')) throw refused(name);
  }
  return out;
}

function legacyText(name: string, value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string' && PLAIN_TEXT.test(value)) return value;
  throw refused(name);
}

const refused = (name: string) =>
  badRequest(
    `Parameter {${name}} cannot be substituted: it must be a number, a boolean, or text made only of ` +
      'letters, digits, spaces and . , : @ % + / - (and opening no comment such as --)',
  );
