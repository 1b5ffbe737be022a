import { describe, expect, test } from 'vitest';
import { SessionPool, type SessionFactory } from '../../origin/drivers/pool.ts';
import { DriverRegistry, settingsHash } from '../../origin/drivers/registry.ts';
import type { ConnectionSettings, Driver } from '../../origin/drivers/types.ts';
import { eventually } from '../harness/eventually.ts';

interface FakeSession {
  id: number;
  alive: boolean;
}

function fakeFactory(): { open: Set<number>; factory: SessionFactory<FakeSession> } {
  let next = 1;
  const open = new Set<number>();
  return {
    open,
    factory: {
      open: async () => {
        const id = next++;
        open.add(id);
        return { id, alive: true };
      },
      destroy: async (s) => void open.delete(s.id),
      alive: (s) => s.alive,
    },
  };
}

describe('session pool', () => {
  test('keeps at most size idle sessions; any number may be busy', async () => {
    const { open, factory } = fakeFactory();
    const pool = new SessionPool(factory, { size: 2, idleTimeoutMs: 60_000 });
    const sessions = await Promise.all([1, 2, 3, 4].map(() => pool.acquire()));
    expect([open.size, pool.busyCount, pool.idleCount]).toEqual([4, 4, 0]);
    for (const s of sessions) await pool.release(s, true);
    expect([open.size, pool.busyCount, pool.idleCount]).toEqual([2, 0, 2]);
    const again = await pool.acquire();
    expect(again.id).toBe(2); // the most recently released, still warm
    await pool.close();
    expect(open.size).toBe(1);
    await pool.release(again, true); // released after close: destroyed
    expect(open.size).toBe(0);
    await expect(pool.acquire()).rejects.toThrow(/closed/);
  });

  test('closes idle sessions after the idle timeout', async () => {
    const { open, factory } = fakeFactory();
    const pool = new SessionPool(factory, { size: 5, idleTimeoutMs: 100 });
    const a = await pool.acquire();
    const b = await pool.acquire();
    await pool.release(a, true);
    await pool.release(b, true);
    expect(pool.idleCount).toBe(2);
    await eventually(() => pool.idleCount === 0 && open.size === 0, { timeoutMs: 2000 });
  });

  test('size 0 opens per use and closes after; unreusable and dead sessions are destroyed', async () => {
    const { open, factory } = fakeFactory();
    const none = new SessionPool(factory, { size: 0, idleTimeoutMs: 0 });
    await none.release(await none.acquire(), true);
    expect([open.size, none.idleCount]).toEqual([0, 0]);

    const pool = new SessionPool(factory, { size: 3, idleTimeoutMs: 0 });
    const a = await pool.acquire();
    const b = await pool.acquire();
    await pool.release(a, false);
    expect(open.has(a.id)).toBe(false);
    await pool.release(b, true);
    b.alive = false; // broke while idle
    const c = await pool.acquire();
    expect(c.id).not.toBe(b.id);
    expect(open.has(b.id)).toBe(false);
  });
});

describe('driver registry', () => {
  const settings = (database: string): ConnectionSettings => ({ type: 'postgres', database, password: 'pw', options: { b: 1, a: 2 } });

  function fakeDriver(): Driver & { closed: boolean } {
    const driver = {
      closed: false,
      idleSessions: () => 3,
      close: async () => void (driver.closed = true),
    };
    return driver as unknown as Driver & { closed: boolean };
  }

  test('one driver per name and settings; edited settings replace and close the old one', async () => {
    const created: (Driver & { closed: boolean })[] = [];
    const registry = new DriverRegistry({ poolSize: 1, poolIdleTimeoutMs: 1000, allowWrites: false }, () => {
      const d = fakeDriver();
      created.push(d);
      return d;
    });
    const first = registry.get('main', settings('a'));
    expect(registry.get('main', { ...settings('a'), options: { a: 2, b: 1 } })).toBe(first);
    expect(registry.idleCount()).toBe(3);
    const second = registry.get('main', settings('b'));
    expect(second).not.toBe(first);
    await eventually(() => created[0].closed);
    registry.get('other', settings('a'));
    expect(registry.idleCount()).toBe(6);
    await registry.drop('main');
    expect(created[1].closed).toBe(true);
    expect(registry.idleCount()).toBe(3);
    await registry.closeAll();
    expect(created.every((d) => d.closed)).toBe(true);
    expect(registry.idleCount()).toBe(0);
  });

  test('the settings hash covers the password and ignores key order', () => {
    expect(settingsHash(settings('a'))).toBe(settingsHash({ ...settings('a'), options: { a: 2, b: 1 } }));
    expect(settingsHash(settings('a'))).not.toBe(settingsHash({ ...settings('a'), password: 'other' }));
  });
});
