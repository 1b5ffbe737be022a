import { badRequest } from '../../errors.ts';
import { formatDate } from '../../time.ts';
import type { ExportFormat } from './fields.ts';

/**
 * An export's `path`: where under the destination's prefix a run's object
 * goes. `{name}`, `{date}` (YYYY-MM-DD), `{time}` (HHMMSS), `{run}` (the run's
 * id) and `{<parameter>}` (the value the run binds) are filled in; the
 * format's extension is appended when the last segment has none. A path can
 * never leave the prefix: the template may not start with `/` or hold `.`
 * or `..` segments or backslashes, and a filled-in value is made safe for one
 * segment.
 */

const PLACEHOLDER = /\{([^{}]*)\}/g;
const BUILT_IN = new Set(['name', 'date', 'time', 'run']);
const EXTENSION: Record<ExportFormat, string> = { parquet: 'parquet', csv: 'csv', ndjson: 'ndjson' };

/** The template's problems, given the names a run will bind (400 `invalid_request` with `errors.path`). */
export function assertPathTemplate(path: string, parameters: ReadonlySet<string>): void {
  const problem = templateProblem(path, parameters);
  if (problem) throw badRequest(`path ${problem}`, { errors: { path: problem } });
}

function templateProblem(path: string, parameters: ReadonlySet<string>): string | null {
  if (path.startsWith('/')) return 'must be relative to the destination (no leading "/")';
  if (path.includes('\\')) return 'must not contain "\\"';
  const literal = path.replace(PLACEHOLDER, 'x');
  if (/[{}]/.test(literal)) return 'has an unclosed "{" or a stray "}"';
  if (path.split('/').some((segment) => segment === '..' || segment === '.')) return 'must not contain "." or ".." segments: it would leave the destination';
  if (path.split('/').some((segment) => segment === '')) return 'must not contain empty segments ("//" or a trailing "/")';
  for (const [, name] of path.matchAll(PLACEHOLDER)) {
    if (!BUILT_IN.has(name!) && !parameters.has(name!)) {
      return `uses {${name}}, which is neither {name}, {date}, {time}, {run} nor a parameter the export binds`;
    }
  }
  return null;
}

/** One value as one safe path segment: only letters, digits, `.`, `_`, `-` and `=`; never `.` or `..`. */
function segmentValue(value: unknown): string {
  const text = typeof value === 'string' ? value : value === null || value === undefined ? 'null' : String(value);
  const safe = text.replace(/[^\p{L}\p{N}._=-]/gu, '_');
  return safe === '' || /^\.+$/.test(safe) ? '_' : safe;
}

export interface PathValues {
  name: string;
  run: number;
  at: Date;
  params: Record<string, unknown>;
}

/** The object's key under the prefix for one run. */
export function objectKey(template: string, format: ExportFormat, values: PathValues): string {
  // formatDate gives the server zone's wall clock: `YYYY-MM-DDTHH:MM:SS.mmm±HH:MM`.
  const local = formatDate(values.at);
  const builtIn: Record<string, string> = {
    name: segmentValue(values.name),
    date: local.slice(0, 10),
    time: local.slice(11, 19).replaceAll(':', ''),
    run: String(values.run),
  };
  const key = template.replace(PLACEHOLDER, (_, name: string) => builtIn[name] ?? segmentValue(values.params[name]));
  const last = key.slice(key.lastIndexOf('/') + 1);
  return last.includes('.') ? key : `${key}.${EXTENSION[format]}`;
}
