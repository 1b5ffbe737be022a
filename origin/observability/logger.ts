import pino, { type Logger } from 'pino';
import { SECRET_VARIABLE } from '../env.ts';
import { batchedStdout } from './log-destination.ts';
import { NO_REQUEST } from './request-context.ts';

/** The fields every line has, in the order the readable format prints them. */
const CORE_FIELDS = ['time', 'level', 'logger', 'request_id', 'key', 'message'];

const MASK = '********';
/** Shorter values would mask ordinary words; no real key or password is this short. */
const MIN_SECRET_LENGTH = 4;

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/**
 * The process's one logger. Every line carries `request_id` and `key` (the
 * caller's name): a line written for a request names them (`requestScopeOf`),
 * any other has `-` for both. `SLUICE_JSON_LOGS=1` prints one JSON object a line
 * (`time`, `level`, `logger`, `request_id`, `key`, `message` and the line's
 * own fields); otherwise a readable line. Reads the raw environment because
 * it must exist before the environment is validated (to report that).
 */
export function createLogger(source: Record<string, string | undefined>): Logger {
  const json = ['1', 'true', 'yes', 'on'].includes(source.SLUICE_JSON_LOGS ?? '');
  const level = LEVELS.has(source.SLUICE_LOG_LEVEL ?? '') ? source.SLUICE_LOG_LEVEL! : 'info';
  const scrub = secretScrubber(source);
  return pino(
    {
      level,
      base: null,
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => ({ logger: 'sluice', ...NO_REQUEST }),
    },
    batchedStdout((line) => scrub(json ? line : readable(line))),
  );
}

/** `2024-05-01T12:00:00.000Z INFO  sluice.access [a1b2c3d4e5f6 admin] GET /q/x 200 {"duration_ms":3.1,...}` */
function readable(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  const rest = Object.fromEntries(Object.entries(entry).filter(([name]) => !CORE_FIELDS.includes(name)));
  const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
  const level = String(entry.level).toUpperCase().padEnd(5);
  return `${entry.time} ${level} ${entry.logger} [${entry.request_id} ${entry.key}] ${entry.message ?? ''}${extra}\n`;
}

/**
 * A last line of defence: whatever a line carries, the values of the secret
 * variables the origin was started with (and the password inside a secret
 * URL) are masked, raw and as they appear escaped inside JSON.
 */
function secretScrubber(source: Record<string, string | undefined>): (line: string) => string {
  const secrets = new Set<string>();
  const add = (value: string) => {
    if (value.length < MIN_SECRET_LENGTH) return;
    secrets.add(value);
    secrets.add(JSON.stringify(value).slice(1, -1));
  };
  for (const [name, value] of Object.entries(source)) {
    if (!name.startsWith('SLUICE_') || !SECRET_VARIABLE.test(name) || !value) continue;
    add(value);
    for (const part of value.split(',')) add(part.trim());
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
