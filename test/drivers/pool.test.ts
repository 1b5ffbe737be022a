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
  test('keeps at most size idle sessions', async () => {
    const { open, factory } = fakeFactory();
    const pool = new SessionPool(factory, { size: 2, max: 10, idleTimeoutMs: 60_000 });
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
    const pool = new SessionPool(factory, { size: 5, max: 10, idleTimeoutMs: 100 });
    const a = await pool.acquire();
    const b = await pool.acquire();
    await pool.release(a, true);
    await pool.release(b, true);
    expect(pool.idleCount).toBe(2);
    await eventually(() => pool.idleCount === 0 && open.size === 0, { timeoutMs: 2000 });
  });

  test('size 0 opens per use and closes after; unreusable and dead sessions are destroyed', async () => {
    const { open, factory } = fakeFactory();
    const none = new SessionPool(factory, { size: 0, max: 10, idleTimeoutMs: 0 });
    await none.release(await none.acquire(), true);
    expect([open.size, none.idleCount]).toEqual([0, 0]);

    const pool = new SessionPool(factory, { size: 3, max: 10, idleTimeoutMs: 0 });
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

describe('session pool at its max', () => {
  test('callers past max wait their turn, first come first served, and get the released sessions: none is opened', async () => {
    const { open, factory } = fakeFactory();
    const pool = new SessionPool(factory, { size: 1, max: 2, idleTimeoutMs: 0 });
    const [a, b] = await Promise.all([pool.acquire(), pool.acquire()]);
    const served: string[] = [];
    const third = pool.acquire().then((s) => (served.push('third'), s));
    const fourth = pool.acquire().then((s) => (served.push('fourth'), s));
    expect([open.size, pool.busyCount, pool.waitingCount]).toEqual([2, 2, 2]);
    await pool.release(b, true);
    expect((await third).id).toBe(b.id);
    await pool.release(a, true);
    expect((await fourth).id).toBe(a.id);
    expect(served).toEqual(['third', 'fourth']);
    expect([open.size, pool.busyCount, pool.waitingCount]).toEqual([2, 2, 0]);
  });

  test('a session destroyed on release makes room: the waiting caller gets a new one', async () => {
    const { open, factory } = fakeFactory();
    const pool = new SessionPool(factory, { size: 1, max: 1, idleTimeoutMs: 0 });
    const a = await pool.acquire();
    const next = pool.acquire();
    await pool.release(a, false);
    const b = await next;
    expect(b.id).not.toBe(a.id);
    expect([...open]).toEqual([b.id]);
  });

  test('a caller that stops waiting while a session opens for it leaves that session to the pool, not busy for good', async () => {
    const { open, factory } = fakeFactory();
    let finishOpening: (() => void) | null = null;
    let slow = false;
    const pool = new SessionPool<FakeSession>(
      { ...factory, open: () => (slow ? new Promise((resolve) => (finishOpening = () => resolve(factory.open()))) : factory.open()) },
      { size: 1, max: 1, idleTimeoutMs: 60_000 },
    );
    const a = await pool.acquire();
    slow = true;
    const controller = new AbortController();
    const second = pool.acquire({ signal: controller.signal });
    const third = pool.acquire();
    // Destroying the only session makes room: a new one starts opening for the first caller waiting.
    await pool.release(a, false);
    controller.abort(new Error('the client left'));
    await expect(second).rejects.toThrow('the client left');
    finishOpening!();
    const next = await Promise.race([third, new Promise<null>((resolve) => setTimeout(() => resolve(null), 1000))]);
    expect(next, 'the caller behind it got the new session').not.toBeNull();
    expect(open.has(next!.id)).toBe(true);
    await pool.release(next!, true);
    expect([pool.busyCount, pool.idleCount, open.size]).toEqual([0, 1, 1]);
    await pool.close();
  });

  test('a wait ends with its signal or its time limit, leaving the queue as it was; close refuses every waiting caller', async () => {
    const { factory } = fakeFactory();
    const pool = new SessionPool(factory, { size: 1, max: 1, idleTimeoutMs: 0 });
    const a = await pool.acquire();
    const controller = new AbortController();
    const gaveUp = pool.acquire({ signal: controller.signal });
    const patient = pool.acquire();
    controller.abort(new Error('client gone'));
    await expect(gaveUp).rejects.toThrow('client gone');
    expect(pool.waitingCount).toBe(1);
    await pool.release(a, true);
    expect((await patient).id).toBe(a.id);

    const late = pool.acquire({ timeoutMs: 50, onTimeout: () => new Error('waited too long') });
    await expect(late).rejects.toThrow('waited too long');
    expect(pool.waitingCount).toBe(0);

    const last = pool.acquire();
    await pool.close();
    await expect(last).rejects.toThrow(/closed/);
  });

  test('a session on its way back (its reset under way) is waited for rather than a new one opened; one that fails its reset is replaced', async () => {
    const { open, factory } = fakeFactory();
    const pool = new SessionPool(factory, { size: 1, max: 10, idleTimeoutMs: 0 });
    const a = await pool.acquire();
    let finishReset!: (reusable: boolean) => void;
    const returned = pool.releaseAfter(a, new Promise<boolean>((resolve) => (finishReset = resolve)));
    const next = pool.acquire();
    expect([open.size, pool.waitingCount]).toEqual([1, 1]);
    finishReset(true);
    await returned;
    expect((await next).id).toBe(a.id);

    const failing = pool.releaseAfter(a, Promise.reject(new Error('reset failed')));
    const after = pool.acquire();
    await failing;
    const b = await after;
    expect(b.id).not.toBe(a.id);
    expect([...open]).toEqual([b.id]);
  });

  test('a session that fails to open for a waiting caller refuses that caller only, and frees its place', async () => {
    const { factory } = fakeFactory();
    let failNext = false;
    const flaky: SessionFactory<FakeSession> = {
      ...factory,
      open: () => (failNext ? ((failNext = false), Promise.reject(new Error('refused'))) : factory.open()),
    };
    const pool = new SessionPool(flaky, { size: 1, max: 1, idleTimeoutMs: 0 });
    const a = await pool.acquire();
    const waiting = pool.acquire();
    failNext = true;
    await pool.release(a, false);
    await expect(waiting).rejects.toThrow('refused');
    const s = await pool.acquire();
    expect([pool.busyCount, pool.waitingCount]).toEqual([1, 0]);
    await pool.release(s, true);
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
    const registry = new DriverRegistry({ poolSize: 1, poolMax: 10, poolIdleTimeoutMs: 1000, allowWrites: false }, () => {
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
