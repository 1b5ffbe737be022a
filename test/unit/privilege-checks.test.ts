import { describe, expect, it } from 'vitest';
import type { AnyDriver } from '../../origin/drivers/types.ts';
import { SluiceError } from '../../origin/errors.ts';
import { PrivilegeChecks } from '../../origin/services/connections/privilege-checks.ts';

/**
 * The answer about a connection's user is asked once per connection and
 * settings version (its ETag: id and revision), however many uses follow;
 * an edited connection is asked again; a database that cannot be reached is
 * not asked again at once; warnings are logged once per version. The driver
 * here is a MySQL-shaped stand-in answering the FILE grant row: the real
 * servers are asked in test/api/connections-warnings.test.ts.
 */

function fakeMysql(state: { reachable: boolean; asked: number }): AnyDriver {
  return {
    type: 'mysql',
    dialect: 'mysql',
    async test() {
      state.asked += 1;
      if (!state.reachable) throw new SluiceError('connection_failed', 'Could not connect to the database');
    },
    async run() {
      return {
        columns: [{ name: 'PRIVILEGE_TYPE', dbType: 'varchar', kind: 'text' }],
        batches: (async function* () {
          yield [['FILE']];
        })(),
        close: async () => {},
      };
    },
  } as unknown as AnyDriver;
}

describe('PrivilegeChecks', () => {
  it('asks once per settings version and logs once', async () => {
    const lines: string[] = [];
    const checks = new PrivilegeChecks({ warn: (...args: unknown[]) => void lines.push(String(args[1] ?? args[0])) });
    const state = { reachable: true, asked: 0 };
    const row = { name: 'app', id: 1, revision: 1 };
    expect(checks.view(row)).toEqual({ warnings: [], privileges_checked: false });
    const answers = await Promise.all(Array.from({ length: 20 }, () => checks.check(row, () => fakeMysql(state))));
    for (const answer of answers) expect(answer).toEqual([expect.stringContaining('the FILE privilege')]);
    expect(state.asked).toBe(1);
    expect(checks.view(row)).toMatchObject({ privileges_checked: true, warnings: answers[0] });
    await checks.check({ ...row, revision: 2 }, () => fakeMysql(state));
    expect(state.asked).toBe(2);
    expect(checks.view(row)).toEqual({ warnings: [], privileges_checked: false });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^connection "app": its database user may do more than its queries need: The user has the FILE privilege/);
  });

  it('a database that cannot be reached is not asked again at once', async () => {
    const checks = new PrivilegeChecks({ warn: () => {} });
    const state = { reachable: false, asked: 0 };
    const row = { name: 'down', id: 2, revision: 1 };
    for (let i = 0; i < 5; i++) await expect(checks.check(row, () => fakeMysql(state))).rejects.toMatchObject({ code: 'connection_failed' });
    expect(state.asked).toBe(1);
    expect(checks.view(row).privileges_checked).toBe(false);
  });
});
