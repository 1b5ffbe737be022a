import { SECRET_VARIABLE } from '../env.ts';
import { REF_PREFIX } from '../secrets/references.ts';
import { batchedOutput } from './log-destination.ts';
import { NO_REQUEST } from './request-context.ts';

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** Writes a line at one level: a message, or fields (a line's own, and `logger`, `request_id`, `key` when it names them) and a message. */
export interface LogFn {
  (message: string): void;
  (fields: object, message?: string): void;
}

export type Logger = Record<LevelName, LogFn>;

/** A line as written, before it is formatted (after the turn, log-destination.ts). */
export interface LogEntry {
  time: number;
  level: LevelName;
  fields: Record<string, unknown>;
  message: string | undefined;
}

const RANKS: Record<LevelName | 'silent', number> = { fatal: 60, error: 50, warn: 40, info: 30, debug: 20, trace: 10, silent: Infinity };
const LEVELS = Object.keys(RANKS);

/** The fields every line has, in the order the readable format prints them. */
const CORE_FIELDS = new Set(['time', 'level', 'logger', 'request_id', 'key', 'message']);

const MASK = '********';
/** Shorter values would mask ordinary words; no real key or password is this short. */
const MIN_SECRET_LENGTH = 4;

/**
 * The process's one logger. Every line carries `request_id` and `key` (the
 * caller's name): a line written for a request names them (`requestScopeOf`),
 * any other has `-` for both. `SLUICE_JSON_LOGS=1` prints one JSON object a
 * line (`level`, `time`, `logger`, `request_id`, `key`, the line's own fields
 * and `message`); otherwise a readable line. A line is only noted when
 * written; it is formatted, masked and written after the turn (ADR 0014).
 * Reads the raw environment because it must exist before the environment is
 * validated (to report that). Lines go to standard output unless `dest` is 2.
 */
export function createLogger(source: Record<string, string | undefined>, { dest = 1 }: { dest?: 1 | 2 } = {}): Logger {
  const json = ['1', 'true', 'yes', 'on'].includes(source.SLUICE_JSON_LOGS ?? '');
  const threshold = RANKS[(LEVELS.includes(source.SLUICE_LOG_LEVEL ?? '') ? source.SLUICE_LOG_LEVEL : 'info') as keyof typeof RANKS];
  const scrub = secretScrubber(source);
  const out = batchedOutput<LogEntry>((entry) => scrub(json ? jsonLine(entry) : readableLine(entry)), dest);
  const at = (level: LevelName): LogFn => {
    if (RANKS[level] < threshold) return () => {};
    return (fieldsOrMessage: object | string, message?: string) => {
      const own = typeof fieldsOrMessage === 'string' ? null : fieldsOrMessage;
      out.write({
        time: Date.now(),
        level,
        fields: { logger: 'sluice', ...NO_REQUEST, ...own },
        message: own === null ? (fieldsOrMessage as string) : message,
      });
    };
  };
  return { fatal: at('fatal'), error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), trace: at('trace') };
}

/** `{"level":"info","time":"2024-05-01T12:00:00.000Z","logger":"sluice.access",...,"message":"GET /q/x 200"}` */
export function jsonLine(entry: LogEntry): string {
  const line = { level: entry.level, time: new Date(entry.time).toISOString(), ...entry.fields, message: entry.message };
  return `${stringify(line)}\n`;
}

/** `2024-05-01T12:00:00.000Z INFO  sluice.access [a1b2c3d4e5f6 admin] GET /q/x 200 {"duration_ms":3.1,...}` */
export function readableLine(entry: LogEntry): string {
  const { fields } = entry;
  const rest: Record<string, unknown> = {};
  let extra = false;
  for (const name in fields) {
    if (CORE_FIELDS.has(name) || fields[name] === undefined) continue;
    rest[name] = fields[name];
    extra = true;
  }
  const time = new Date(entry.time).toISOString();
  const head = `${fields.logger} [${fields.request_id} ${fields.key}] ${entry.message ?? ''}`;
  return `${time} ${entry.level.toUpperCase().padEnd(5)} ${escapeControls(head)}${extra ? ` ${escapeControls(stringify(rest))}` : ''}\n`;
}

/**
 * C0 controls, DEL, C1 controls (NEL among them) and the Unicode line and
 * paragraph separators: what a terminal or a log viewer may take for a line
 * break or an escape sequence.
 */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A readable line's text with its control characters written as JSON writes
 * them (`\n`, `\u0000`): a request path or a name a client chose cannot end
 * the line and forge the next one. Inside the JSON part only DEL, C1 and the
 * separators are left to escape, and `\uXXXX` keeps that part valid JSON.
 */
function escapeControls(text: string): string {
  return text.replace(CONTROLS, (char) => SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON; a bigint as its digits and a cycle as a placeholder rather than a throw. */
function stringify(value: object): string {
  try {
    return JSON.stringify(value);
  } catch {
    const path: unknown[] = [];
    return JSON.stringify(value, function (this: unknown, _name, item: unknown) {
      if (typeof item === 'bigint') return item.toString();
      if (item === null || typeof item !== 'object') return item;
      // `path` holds the objects from the root to `item`'s holder.
      path.length = path.indexOf(this) + 1;
      if (path.includes(item)) return '[Circular]';
      path.push(item);
      return item;
    });
  }
}

/**
 * A last line of defence: whatever a line carries, the values of the secret
 * variables the origin was started with, `SLUICE_REF_` ones (held for
 * `${VAR}` references) and the OTLP exporter's headers among them, and the
 * password inside a secret URL are masked, raw and as they appear escaped
 * inside JSON.
 */
function secretScrubber(source: Record<string, string | undefined>): (line: string) => string {
  const secrets = new Set<string>();
  const add = (value: string) => {
    if (value.length < MIN_SECRET_LENGTH) return;
    secrets.add(value);
    secrets.add(JSON.stringify(value).slice(1, -1));
  };
  for (const [name, value] of Object.entries(source)) {
    if (!/^(SLUICE|OTEL)_/.test(name) || !(SECRET_VARIABLE.test(name) || name.startsWith(REF_PREFIX)) || !value) continue;
    add(value);
    for (const part of value.split(',')) {
      add(part.trim());
      // An OTLP header's value (`authorization=Bearer%20...`), as set and as sent.
      const assigned = part.slice(part.indexOf('=') + 1).trim();
      if (part.includes('=') && name.startsWith('OTEL_')) {
        add(assigned);
        add(decoded(assigned));
      }
    }
    const password = urlPassword(value);
    if (password) {
      add(password);
      add(decoded(password));
    }
  }
  // Longest first, so a value containing another is masked whole.
  const list = [...secrets].sort((a, b) => b.length - a.length);
  if (list.length === 0) return (line) => line;
  return (line) => {
    for (const secret of list) if (line.includes(secret)) line = line.split(secret).join(MASK);
    return line;
  };
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function urlPassword(value: string): string | null {
  try {
    return new URL(value).password || null;
  } catch {
    return null;
  }
}
