/**
 * The examples a documentation page marks, and whether an answer is the one
 * the page shows. The grammar, in a page's Markdown:
 *
 * - `<!-- example -->` or `<!-- example: word ... -->` before a fenced block
 *   marks it. An `sh` block runs in bash; an `sql` block, marked
 *   `connection=<name>`, runs on that connection through `POST /execute_sql`.
 *   Words: `origin` (the block starts the page's origin: see `originCommand`),
 *   `retry` (the answer may take a few tries: run history is written in
 *   batches), `stream` (the block never ends by itself: it is stopped once it
 *   printed the answer, and sets nothing for the blocks after it),
 *   `first-answer` (the guide's first keyed answer, timed).
 * - `<!-- expect: json|text|table -->` after it is the answer it must give: a
 *   fenced block, or for `table` the Markdown table that follows.
 */

export interface Example {
  /** 1-based line of the marker, for messages. */
  line: number;
  lang: string;
  code: string;
  words: string[];
  expect: Expected | null;
}

export type Expected = { kind: 'json' | 'text'; body: string } | { kind: 'table'; header: string[]; rows: string[][] };

/**
 * The fenced blocks of a page, fences included: a fence of N backticks ends
 * at a line of N or more, so a ```` block may show ``` blocks, markers and
 * headings as text.
 */
export function fencedBlocks(lines: string[]): { start: number; end: number; lang: string }[] {
  const blocks: { start: number; end: number; lang: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*(`{3,})(.*)$/.exec(lines[i]);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !(lines[end].trim().startsWith(open[1]) && /^`+$/.test(lines[end].trim()))) end++;
    blocks.push({ start: i, end, lang: open[2].trim() });
    i = end;
  }
  return blocks;
}

/** For each line, whether it belongs to a fenced block. */
export function inFences(lines: string[]): boolean[] {
  const fenced = lines.map(() => false);
  for (const { start, end } of fencedBlocks(lines)) for (let i = start; i <= end && i < lines.length; i++) fenced[i] = true;
  return fenced;
}

/** The `sh` blocks of a page that call the origin (`$SLUICE`, `$ADMIN_KEY`) without a marker: 1-based lines. */
export function unmarkedCalls(page: string): number[] {
  const lines = page.split('\n');
  return fencedBlocks(lines)
    .filter(({ start, end, lang }) => lang === 'sh' && !/^\s*<!-- example/.test(lines[start - 1] ?? '') && /\$SLUICE\b|\$ADMIN_KEY\b/.test(lines.slice(start, end).join('\n')))
    .map(({ start }) => start + 1);
}

/** The marked examples of a page, in order. */
export function examples(page: string): Example[] {
  const found: Example[] = [];
  const lines = page.split('\n');
  const fenced = inFences(lines);
  // A block may stand indented in a list item: its lines lose the fence's indentation.
  const fenceAfter = (i: number): { lang: string; body: string; end: number } => {
    let start = i + 1;
    while (lines[start] !== undefined && !lines[start].trimStart().startsWith('```')) start++;
    if (lines[start] === undefined) throw new Error(`line ${i + 1}: a marker with no fenced block after it`);
    const indent = lines[start].length - lines[start].trimStart().length;
    let end = start + 1;
    while (lines[end] !== undefined && lines[end].trim() !== '```') end++;
    return { lang: lines[start].trim().slice(3).trim(), body: lines.slice(start + 1, end).map((line) => line.slice(indent)).join('\n'), end };
  };
  for (let i = 0; i < lines.length; i++) {
    if (fenced[i]) continue;
    const example = /^\s*<!-- example(?:: ([\w=. -]+))? -->$/.exec(lines[i]);
    if (example) {
      const { lang, body, end } = fenceAfter(i);
      found.push({ line: i + 1, lang, code: body, words: example[1]?.trim().split(/\s+/) ?? [], expect: null });
      i = end;
      continue;
    }
    const expected = /^\s*<!-- expect: (json|text|table) -->$/.exec(lines[i]);
    if (!expected) continue;
    const last = found.at(-1);
    if (!last || last.expect) throw new Error(`line ${i + 1}: an expected answer with no example before it`);
    if (expected[1] === 'table') {
      let start = i + 1;
      while (lines[start]?.trim() === '') start++;
      let end = start;
      while (lines[end]?.trimStart().startsWith('|')) end++;
      const cells = (row: string) => row.trim().replace(/^\||\|$/g, '').split('|').map((cell) => cell.trim());
      last.expect = { kind: 'table', header: cells(lines[start]), rows: lines.slice(start + 2, end).map(cells) };
      i = end - 1;
      continue;
    }
    const { body, end } = fenceAfter(i);
    last.expect = { kind: expected[1] as 'json' | 'text', body };
    i = end;
  }
  return found;
}

/** The value of a `word=value` word of an example, or null. */
export function word(example: Example, name: string): string | null {
  const found = example.words.find((w) => w.startsWith(`${name}=`));
  return found ? found.slice(name.length + 1) : null;
}

/**
 * An `origin` block's start command: `[NAME=value ...] npm start [&]`, maybe
 * after `npm install &&`. Returns the assignments (as written, for bash to
 * evaluate), and the lines before and after it, which run as any example
 * before the origin starts and once it is up.
 */
export function originCommand(code: string): { before: string; assignments: string; after: string } {
  const match = /^(?:npm install && )?((?:[A-Z_][A-Z0-9_]*=(?:'[^']*'|"(?:[^"\\]|\\.)*"|\$\([^)]*\)|[^\s'"]+)+(?:[ \t]*\\\n[ \t]*|[ \t]+))*)npm start( &)?$/m.exec(code);
  if (!match) throw new Error(`an origin block holds no "[NAME=value ...] npm start" line:\n${code}`);
  return {
    before: code.slice(0, match.index).trim(),
    assignments: match[1].replace(/\\\n\s*/g, ' ').trim(),
    after: code.slice(match.index + match[0].length).trim(),
  };
}

/** The names `assignments` sets. */
export function assignedNames(assignments: string): string[] {
  return [...assignments.matchAll(/(?:^|\s)([A-Z_][A-Z0-9_]*)=/g)].map((m) => m[1]);
}

/**
 * Whether `actual` matches `shown`: `"..."` (or `"…"`) matches any value; in
 * a longer string it stands for any text (`"slc_..."`); an array whose last
 * item is `"..."` may hold more items; objects may hold more fields than
 * shown, and a field named `"..."` is one of them, whatever its name (a key
 * id), holding the value shown.
 */
export function matches(shown: unknown, actual: unknown): boolean {
  if (typeof shown === 'string') {
    if (shown === '...' || shown === '…') return true;
    const parts = shown.split(/\.\.\.|…/);
    if (parts.length === 1) return shown === actual;
    const glob = new RegExp(`^${parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*')}$`);
    return typeof actual === 'string' && glob.test(actual);
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return false;
    const open = shown.length > 0 && (shown.at(-1) === '...' || shown.at(-1) === '…');
    const items = open ? shown.slice(0, -1) : shown;
    if (open ? actual.length < items.length : actual.length !== items.length) return false;
    return items.every((item, i) => matches(item, actual[i]));
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const fields = actual as Record<string, unknown>;
    const named = Object.entries(shown).filter(([key]) => key !== '...' && key !== '…');
    const anyKey = Object.entries(shown).find(([key]) => key === '...' || key === '…');
    const others = Object.keys(fields).filter((key) => !(key in shown));
    return named.every(([key, value]) => key in fields && matches(value, fields[key])) && (!anyKey || others.some((key) => matches(anyKey[1], fields[key])));
  }
  return shown === actual;
}

/** The JSON values of `text`, one after another (a single answer, or several printed in a row). */
export function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      if (depth === 0 && !inString) {
        values.push(JSON.parse(text.slice(start, i + 1)));
        start = -1;
      }
      continue;
    }
    if (/\s/.test(c)) {
      if (depth === 0 && start >= 0) {
        values.push(JSON.parse(text.slice(start, i)));
        start = -1;
      }
      continue;
    }
    if (start < 0) start = i;
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) {
        values.push(JSON.parse(text.slice(start, i + 1)));
        start = -1;
      }
    }
  }
  if (start >= 0) values.push(JSON.parse(text.slice(start)));
  return values;
}

/**
 * Whether `stdout` is the answer `expected` shows. Text: the lines shown, in
 * order, among those printed (`...` stands for any text, as in JSON). A
 * table: every row of a JSON answer, each value as text.
 */
export function answers(expected: Expected | null, stdout: string): boolean {
  if (!expected) return true;
  try {
    if (expected.kind === 'text') {
      // The lines shown, in their order, among the lines printed.
      const printed = stdout.split('\n').map((line) => line.trim());
      let at = 0;
      return expected.body
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '')
        .every((line) => {
          while (at < printed.length && !matches(line, printed[at])) at++;
          return at++ < printed.length;
        });
    }
    if (expected.kind === 'table') {
      const rows = JSON.parse(stdout) as Record<string, unknown>[];
      const text = (value: unknown) => (value === null ? '' : String(value));
      return (
        Array.isArray(rows) &&
        rows.length === expected.rows.length &&
        rows.every((row, i) => matches(expected.header, Object.keys(row)) && matches(expected.rows[i], Object.values(row).map(text)))
      );
    }
    const shown = jsonValues(expected.body);
    const actual = jsonValues(stdout);
    return shown.length === actual.length && shown.every((value, i) => matches(value, actual[i]));
  } catch {
    return false;
  }
}

/** A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces as hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .replace(/`/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings (a repeated one gets `-1`, `-2`...). */
export function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  const lines = page.split('\n');
  const fenced = inFences(lines);
  for (const [i, line] of lines.entries()) {
    const heading = fenced[i] ? null : /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    const base = anchorOf(heading[1].trim());
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** The relative links of a page, `[text](target)`, outside fenced blocks. */
export function relativeLinks(page: string): string[] {
  const lines = page.split('\n');
  const fenced = inFences(lines);
  return lines.flatMap((line, i) => {
    if (fenced[i]) return [];
    return [...line.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((target) => !/^[a-z]+:/.test(target));
  });
}
