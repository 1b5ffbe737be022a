import { describe, expect, it } from 'vitest';
import { type LogEntry, jsonLine, readableLine } from '../../../origin/observability/logger.ts';

const TIME = Date.parse('2026-05-01T12:00:00.000Z');
const entry = (fields: Record<string, unknown>, message?: string): LogEntry => ({
  time: TIME,
  level: 'info',
  fields: { logger: 'sluice', request_id: '-', key: '-', ...fields },
  message,
});

describe('log lines', () => {
  it('a JSON line has level, time, the core fields, the line\'s own and message, and ends the line', () => {
    const line = jsonLine(entry({ logger: 'sluice.access', request_id: 'a1b2', key: 'admin', status: 200 }, 'GET /x 200'));
    expect(line.endsWith('\n')).toBe(true);
    expect(JSON.parse(line)).toEqual({
      level: 'info',
      time: '2026-05-01T12:00:00.000Z',
      logger: 'sluice.access',
      request_id: 'a1b2',
      key: 'admin',
      status: 200,
      message: 'GET /x 200',
    });
  });

  it('a readable line is time, level, logger, [request id, caller], message, then the other fields as JSON', () => {
    expect(readableLine(entry({ request_id: 'a1b2', key: 'admin', rows: 3, skipped: undefined }, 'done'))).toBe(
      '2026-05-01T12:00:00.000Z INFO  sluice [a1b2 admin] done {"rows":3}\n',
    );
    expect(readableLine(entry({}))).toBe('2026-05-01T12:00:00.000Z INFO  sluice [- -] \n');
  });

  it('a readable line escapes control characters in every field, so one entry is one line', () => {
    const line = readableLine(
      entry({ logger: 'sluice.x\n', request_id: 'a\r', key: 'k\u0000', path: '/a\u007f\u0085\u2028\u2029\u001b' }, 'GET /q/x\nFORGED\ttab\u0000'),
    );
    expect(line).toBe(
      '2026-05-01T12:00:00.000Z INFO  sluice.x\\n [a\\r k\\u0000] GET /q/x\\nFORGED\\ttab\\u0000 {"path":"/a\\u007f\\u0085\\u2028\\u2029\\u001b"}\n',
    );
    expect(line.slice(0, -1)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    // The other fields stay JSON.
    expect(JSON.parse(line.slice(line.indexOf('{')))).toEqual({ path: '/a\u007f\u0085\u2028\u2029\u001b' });
  });

  it('a bigint is written as its digits and a cycle as a placeholder (an object met twice is no cycle), never a throw', () => {
    const cyclic: Record<string, unknown> = { name: 'a' };
    cyclic.self = cyclic;
    const shared = { n: 1 };
    const parsed = JSON.parse(jsonLine(entry({ big: 2n ** 70n, cyclic, twice: [shared, shared] }, 'm')));
    expect(parsed.big).toBe('1180591620717411303424');
    expect(parsed.cyclic).toEqual({ name: 'a', self: '[Circular]' });
    expect(parsed.twice).toEqual([{ n: 1 }, { n: 1 }]);
  });
});
