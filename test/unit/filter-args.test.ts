import { describe, expect, it } from 'vitest';
import { FilterArgs, cursorCodec } from '../../origin/filter-args.ts';

/** The reading of a listing's query-string filters shared by the audit log and run history. */

const refusal = (work: () => void) => {
  try {
    work();
  } catch (error) {
    return error as { code: string; status: number; message: string; extras: Record<string, unknown> };
  }
  throw new Error('not refused');
};

describe('FilterArgs', () => {
  it('refuses an unknown name at once, naming the allowed ones', () => {
    const error = refusal(() => new FilterArgs({ limit: ['5'], actions: ['x'] }, ['limit', 'action']));
    expect([error.code, error.status, error.message]).toEqual(['unknown_field', 400, 'Unknown filter: actions; use limit, action']);
    expect(error.extras).toEqual({ fields: ['actions'] });
  });

  it('notes every repeated or malformed value, then refuses them all in one 400', () => {
    const read = new FilterArgs({ action: ['a', 'b'], limit: ['0'], cursor: ['nope!'] }, ['action', 'limit', 'cursor']);
    expect(read.one('action')).toBe('a');
    expect(read.limit('limit', 1000)).toBeUndefined();
    expect(read.cursor('cursor', cursorCodec('run'))).toBeUndefined();
    const error = refusal(() => read.done());
    expect([error.code, error.status]).toEqual(['invalid_request', 400]);
    expect(error.message).toBe('Invalid filters: action was given more than once; limit must be a whole number from 1 to 1000; cursor is not a cursor this server gave (use next_cursor as it came)');
    expect(Object.keys(error.extras.errors as object)).toEqual(['action', 'limit', 'cursor']);
  });

  it('reads absent and empty arguments as no filter, and good ones as given', () => {
    const runs = cursorCodec('run');
    const read = new FilterArgs({ q: [''], limit: ['1000'], cursor: [runs.encode(42)] }, ['q', 'limit', 'cursor', 'action']);
    expect([read.one('q'), read.one('action'), read.limit('limit', 1000), read.cursor('cursor', runs)]).toEqual([undefined, undefined, 1000, 42]);
    expect(() => read.done()).not.toThrow();
  });

  it('takes back only its own kind of cursor', () => {
    const audit = cursorCodec('audit');
    expect(audit.decode(audit.encode(7))).toBe(7);
    expect(cursorCodec('run').decode(audit.encode(7))).toBeNull();
    expect(audit.decode('not base64url!')).toBeNull();
  });
});
