import { Composer, type Document, LineCounter, Parser, YAMLParseError } from 'yaml';
import { DEPTH_PROBLEM } from '../../../shared/json-depth.ts';
import { invalidConfig } from './problems.ts';
import { nextTurn } from './transaction.ts';

/**
 * An alias may be expanded at most MAX_ALIAS_COUNT times in all: a file of
 * nested aliases ("billion laughs") would otherwise expand exponentially.
 */
const MAX_ALIAS_COUNT = 100;

/**
 * Characters of the file the parser reads between turns of the event loop:
 * reading YAML costs about 0.3 ms a kilobyte, so a file of a few MiB read at
 * once would keep every other request waiting for a second or more.
 */
const CHUNK = 64 * 1024;

/**
 * A configuration file's YAML document as plain values (YAML 1.2 core
 * schema: `yes`/`no` stay text, as in JSON). Its text is read a chunk at a
 * time, letting other requests in between; any problem is 400
 * `invalid_config` with its line and column.
 */
export async function readYaml(bytes: Buffer): Promise<unknown> {
  const source = bytes.toString('utf8');
  try {
    const lines = new LineCounter();
    const document = await composeOne(source, lines);
    if (document.errors.length > 0) {
      throw invalidConfig(
        document.errors.map((err) => {
          const at = lines.linePos(err.pos[0]);
          return { path: '', message: `not valid YAML: ${yamlProblem(err.message)} at line ${at.line}, column ${at.col}` };
        }),
      );
    }
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    // The parser and toJS recurse on nested collections: a document too deep for them is the depth problem.
    if (err instanceof RangeError) throw invalidConfig([{ path: '', message: `not valid YAML: the file ${DEPTH_PROBLEM}` }]);
    // Thrown by toJS past maxAliasCount.
    if (err instanceof ReferenceError) {
      throw invalidConfig([{ path: '', message: `not valid YAML: its aliases expand more than ${MAX_ALIAS_COUNT} times (${err.message}): write the values out` }]);
    }
    throw err;
  }
}

/** A parser error's first line; the parser catches its own stack overflow, which is the depth problem. */
const yamlProblem = (message: string): string => (/Maximum call stack size exceeded/.test(message) ? `the file ${DEPTH_PROBLEM}` : message.split('\n')[0]!);

/** What `parseDocument` does, with the text fed to the parser in chunks that end at a line's end. */
async function composeOne(source: string, lines: LineCounter): Promise<Document.Parsed> {
  const parser = new Parser(lines.addNewLine);
  const tokens = [];
  for (let start = 0; start < source.length; ) {
    const newline = source.indexOf('\n', start + CHUNK);
    const end = newline === -1 ? source.length : newline + 1;
    for (const token of parser.parse(source.slice(start, end), end < source.length)) tokens.push(token);
    start = end;
    if (start < source.length) await nextTurn();
  }
  let document: Document.Parsed | null = null;
  // With `forceDoc`, even an empty text composes to one (empty) document.
  for (const composed of new Composer({ uniqueKeys: true }).compose(tokens, true, source.length)) {
    if (document !== null) {
      document.errors.push(new YAMLParseError([composed.range[0], composed.range[1]], 'MULTIPLE_DOCS', 'the file holds more than one document'));
      break;
    }
    document = composed;
  }
  return document!;
}
