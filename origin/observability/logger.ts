import pino, { type Logger } from 'pino';

/** One logger for the process; request lines are children carrying request_id and key. */
export function createLogger(options: { level?: string } = {}): Logger {
  return pino({
    level: options.level ?? 'info',
    base: { logger: 'sluice' },
    messageKey: 'message',
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
