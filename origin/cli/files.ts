import { readFile, writeFile } from 'node:fs/promises';
import { stringify as toYaml } from 'yaml';
import { SluiceError } from '../errors.ts';

/** A file a command reads, as bytes (a config file's SHA-256 is of its bytes as sent) and as text. */
export interface InputFile {
  /** As the user named it; `-` is standard input. */
  path: string;
  bytes: Buffer;
  text: string;
  syntax: 'json' | 'yaml';
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
  const text = bytes.toString('utf8');
  if (text.trim() === '') throw problem(`${path}: the file is empty`, 'Give a file exported by sluice, or write one by its reference.');
  return { path: path === '-' ? '(standard input)' : path, bytes, text, syntax: syntaxOf(path, text) };
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
