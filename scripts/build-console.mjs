// Builds the web console (console/) into dist/console: one script and one
// style sheet named by their content hash, and index.html naming them, so
// the origin can serve the assets as immutable and the page with a strict
// Content-Security-Policy (no inline script or style). esbuild is the
// origin's bundler already: no second toolchain. Reports the bundle's size.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist/console');

/** Builds the console; returns what it wrote and the sizes (bytes, raw and gzip). */
export async function buildConsole() {
  const result = await build({
    entryPoints: { app: 'console/src/main.ts', style: 'console/src/style.css' },
    outdir: 'assets',
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    logLevel: 'warning',
    absWorkingDir: root,
    write: false,
  });
  const files = result.outputFiles.map((file) => ({ name: basename(file.path), contents: file.contents }));
  const script = files.find((f) => f.name.startsWith('app-') && f.name.endsWith('.js'));
  const style = files.find((f) => f.name.startsWith('style-') && f.name.endsWith('.css'));
  if (!script || !style) throw new Error('console build: the script or the style sheet is missing from the output');
  const html = readFileSync(join(root, 'console/index.html'), 'utf8')
    .replace('%SCRIPT%', `/console/assets/${script.name}`)
    .replace('%STYLE%', `/console/assets/${style.name}`);
  // A fresh folder, written aside then swapped in whole: an origin serving meanwhile never sees half of it.
  const next = `${out}.${process.pid}.tmp`;
  rmSync(next, { recursive: true, force: true });
  mkdirSync(join(next, 'assets'), { recursive: true });
  for (const file of files) writeFileSync(join(next, 'assets', file.name), file.contents);
  writeFileSync(join(next, 'index.html'), html);
  mkdirSync(dirname(out), { recursive: true });
  const old = `${out}.${process.pid}.old`;
  try {
    renameSync(out, old);
  } catch {
    // First build: nothing to move aside.
  }
  renameSync(next, out);
  rmSync(old, { recursive: true, force: true });
  const sizes = [...files.map((f) => ({ name: `assets/${f.name}`, contents: f.contents })), { name: 'index.html', contents: Buffer.from(html) }].map(
    (f) => ({ name: f.name, bytes: f.contents.length, gzip: gzipSync(f.contents).length }),
  );
  return { sizes, total: sizes.reduce((n, s) => n + s.bytes, 0), totalGzip: sizes.reduce((n, s) => n + s.gzip, 0) };
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

/** One line per file and a total, as the build prints it. */
export function sizeReport({ sizes, total, totalGzip }) {
  return [...sizes.map((s) => `  dist/console/${s.name}  ${kib(s.bytes)} (gzip ${kib(s.gzip)})`), `  console total ${kib(total)} (gzip ${kib(totalGzip)})`].join('\n');
}
