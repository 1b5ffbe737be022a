import { describe, expect, test } from 'vitest';
import { inspect } from '../../../origin/sql/index.ts';

/** Edges of the side-effect check the corpus does not show (origin/sql/side-effects.ts). */
describe('side-effect calls', () => {
  test('set_config with a missing or unclosed third argument is refused', () => {
    expect(inspect("select set_config('a.b', 'c')", 'postgres').isRead).toBe(false);
    expect(inspect("select set_config('a.b', 'c', true", 'postgres').isRead).toBe(true);
    expect(inspect("select set_config('a.b', 'c', false", 'postgres').isRead).toBe(false);
    expect(inspect("select set_config('a.b', f(1, 2), true)", 'postgres').isRead).toBe(true);
    expect(inspect("select set_config('a.b', 'c', (true))", 'postgres').isRead).toBe(false);
  });

  test('names are matched per dialect: another engine’s function is no call here', () => {
    expect(inspect("select get_lock('a', 0)", 'postgres').isRead).toBe(true);
    expect(inspect("select lo_import('/etc/passwd')", 'mysql').isRead).toBe(true);
    expect(inspect("select pg_notify('c', 'x')", 'duckdb').isRead).toBe(true);
  });

  test('a MySQL double-quoted name is a string by default, and a call under ANSI_QUOTES', () => {
    expect(inspect('SELECT "GET_LOCK"(1)', 'mysql').refusal).toMatch(/^GET_LOCK\(\) .* when the server runs with ANSI_QUOTES/);
  });

  test('every refused call is reported once per name', () => {
    const info = inspect('select pg_advisory_lock(1), pg_advisory_lock(2), pg_advisory_unlock_all()', 'postgres');
    expect(info.writeOps).toEqual(['PG_ADVISORY_LOCK()', 'PG_ADVISORY_UNLOCK_ALL()']);
    expect(info.refusal).toBe('PG_ADVISORY_LOCK() takes or releases a lock other sessions wait on');
  });

  // Quadratic work on this input would take minutes; linear takes well under a second.
  test('stays linear on long input', () => {
    const calls = Array.from({ length: 20_000 }, (_, i) => `set_config('a.b', '${i}', true)`).join(', ');
    const started = performance.now();
    expect(inspect(`select ${calls}`, 'postgres').isRead).toBe(true);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
