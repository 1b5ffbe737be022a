import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../../origin/drivers/types.ts';
import type { Env } from '../../../origin/env.ts';
import { SluiceError } from '../../../origin/errors.ts';
import { type StatementAccess, checkStatement, statementAccess } from '../../../origin/services/run/statement.ts';
import { emptyGrants } from '../../../shared/access/grants.ts';

/** The guard and a caller's grants on one statement (spec, Authentication 6 and the write rules). */

const WRITES = { SLUICE_ALLOW_WRITES: true } as Env;
const NO_WRITES = { SLUICE_ALLOW_WRITES: false } as Env;
const full: StatementAccess = { mayWrite: true, allowedWriteOps: null, allowedTables: null };

const outcome = (env: Env, sql: string, access: StatementAccess, { stream = false, dialect = 'postgres' as Dialect } = {}) => {
  try {
    return { ok: checkStatement(env, sql, dialect, stream, access).keyword };
  } catch (err) {
    expect(err).toBeInstanceOf(SluiceError);
    return { status: (err as SluiceError).status, message: (err as SluiceError).message };
  }
};

describe('checkStatement', () => {
  it('lets reads through whatever the write settings', () => {
    expect(outcome(NO_WRITES, 'select 1', { ...full, mayWrite: false })).toEqual({ ok: 'SELECT' });
  });

  it('keeps the guard: one statement, writes only when the server allows them, never streamed', () => {
    expect(outcome(WRITES, 'select 1; select 2', full)).toMatchObject({ status: 400 });
    expect(outcome(WRITES, '  ', full)).toMatchObject({ status: 400 });
    expect(outcome(NO_WRITES, 'insert into t values (1)', full)).toMatchObject({ status: 403, message: expect.stringMatching(/disabled on this server/) });
    expect(outcome(WRITES, 'insert into t values (1)', full, { stream: true })).toMatchObject({ status: 403, message: expect.stringMatching(/read-only/) });
    expect(outcome(WRITES, 'insert into t values (1)', full)).toEqual({ ok: 'INSERT' });
  });

  it('refuses a write the grants do not allow, even when the server allows writes', () => {
    expect(outcome(WRITES, 'delete from t', { ...full, mayWrite: false })).toMatchObject({ status: 403, message: expect.stringMatching(/may not write/) });
  });

  it('narrows writes to allowed_write_ops, case-insensitively, naming the permitted operations', () => {
    const access = { ...full, allowedWriteOps: ['insert', 'update'] };
    expect(outcome(WRITES, 'INSERT INTO t VALUES (1)', access)).toEqual({ ok: 'INSERT' });
    expect(outcome(WRITES, 'Update t set a = 1', access)).toEqual({ ok: 'UPDATE' });
    const refused = outcome(WRITES, 'delete from t', access);
    expect(refused).toMatchObject({ status: 403 });
    expect(refused.message).toBe('DELETE is not permitted for this API key; permitted operations: INSERT, UPDATE');
    // A write hidden in a WITH is still its own keyword.
    expect(outcome(WRITES, 'with d as (delete from t returning *) select * from d', access)).toMatchObject({ status: 403, message: expect.stringMatching(/^DELETE is not permitted/) });
    expect(outcome(WRITES, 'drop table t', { ...full, allowedWriteOps: [] })).toMatchObject({ status: 403, message: expect.stringMatching(/permitted operations: none/) });
  });

  it('treats a call with side effects as a write of its own: off with writes, narrowed by allowed_write_ops', () => {
    const notify = "select pg_notify('jobs', 'x')";
    expect(outcome(NO_WRITES, notify, full)).toMatchObject({ status: 403, message: expect.stringMatching(/disabled on this server: PG_NOTIFY\(\) sends/) });
    expect(outcome(WRITES, notify, full)).toEqual({ ok: 'SELECT' });
    expect(outcome(WRITES, notify, { ...full, mayWrite: false })).toMatchObject({ status: 403, message: expect.stringMatching(/may not write/) });
    const refused = outcome(WRITES, "insert into t select lo_import('/etc/passwd')", { ...full, allowedWriteOps: ['insert'] });
    expect(refused.message).toBe('LO_IMPORT() is not permitted for this API key; permitted operations: INSERT');
    expect(outcome(WRITES, "SELECT GET_LOCK('a', 0)", full, { stream: true, dialect: 'mysql' })).toMatchObject({ status: 403, message: expect.stringMatching(/read-only/) });
  });

  it('checks allowed_tables on reads and writes', () => {
    const access = { ...full, allowedTables: ['films'] };
    expect(outcome(WRITES, 'select * from films', access)).toEqual({ ok: 'SELECT' });
    expect(outcome(WRITES, 'select * from secrets', access)).toMatchObject({ status: 403, message: expect.stringMatching(/table secrets/) });
    expect(outcome(WRITES, 'insert into secrets values (1)', access)).toMatchObject({ status: 403 });
  });
});

describe('statementAccess', () => {
  it("takes a key's write keywords and tables; others have none; only the server key is the server key", () => {
    const key = { id: 1, name: 'k', workspace: 'default', grants: { ...emptyGrants(), allowed_write_ops: ['insert'], allowed_tables: ['films'] } };
    expect(statementAccess({ key, admin: false }, true)).toEqual({ mayWrite: true, allowedWriteOps: ['insert'], allowedTables: ['films'], serverKey: false });
    expect(statementAccess({ admin: true }, false)).toEqual({ mayWrite: false, allowedWriteOps: null, allowedTables: null, serverKey: true });
  });
});
