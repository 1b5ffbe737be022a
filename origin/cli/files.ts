import { readFile, writeFile } from 'node:fs/promises';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { SluiceError } from '../errors.ts';

/**
 * A file a command reads: its bytes (sent as they are: a config file's
 * SHA-256 is of its bytes), and the document they hold, parsed here so a
 * syntax error names the file whatever then reads it.
 */
export interface InputFile {
  /** As the user named it; `(standard input)` for `-`. */
  path: string;
  bytes: Buffer;
  syntax: 'json' | 'yaml';
  document: unknown;
}

const problem = (message: string, hint: string) => new SluiceError('invalid_request', message, { hint });

/** JSON by a `.json` name, YAML by `.yaml`/`.yml`; otherwise JSON when the text starts with `{`, else YAML. */
export function syntaxOf(path: string, text: string): 'json' | 'yaml' {
  if (/\.json$/i.test(path)) return 'json';
  if (/\.ya?ml$/i.test(path)) return 'yaml';
  return text.trimStart().startsWith('{') ? 'json' : 'yaml';
}

export async function readInput(path: string): Promise<InputFile> {
  let bytes: Buffer;
  try {
    bytes = path === '-' ? await readStdin() : await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw problem(`${path}: no such file`, 'Check the path (relative to the current folder), or give - to read standard input.');
    if (code === 'EISDIR') throw problem(`${path}: is a folder, not a file`, 'Name the file itself.');
    if (code === 'EACCES') throw problem(`${path}: permission denied`, 'Make the file readable by this user.');
    throw err;
  }
  const name = path === '-' ? '(standard input)' : path;
  const text = bytes.toString('utf8');
  if (text.trim() === '') throw problem(`${name}: the file is empty`, 'Give a file exported by sluice, or write one as docs/reference/cli.md describes.');
  const syntax = syntaxOf(path, text);
  let document: unknown;
  try {
    document = syntax === 'json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    // The YAML parser adds the line and a caret under it: its first line names the place.
    const first = (err as Error).message.split('\n')[0]!.replace(/:$/, '');
    throw problem(`${name}: not valid ${syntax.toUpperCase()}: ${first}`, `Fix the ${syntax.toUpperCase()} syntax where named.`);
  }
  return { path: name, bytes, syntax, document };
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A document as a file: YAML or JSON (two-space indent), ending with a newline. */
export function serialize(document: unknown, syntax: 'json' | 'yaml'): string {
  return syntax === 'json' ? `${JSON.stringify(document, null, 2)}\n` : toYaml(document, { lineWidth: 0 });
}

/** Writes `text` to `path`, naming the file in any failure. */
export async function writeOutput(path: string, text: string): Promise<void> {
  try {
    await writeFile(path, text);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw problem(`${path}: cannot write the file (${code ?? (err as Error).message})`, 'Check that its folder exists and is writable, or leave out --out to print to standard output.');
  }
}
