import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADMIN_ROLES, CAPABILITIES, roleHas } from '../../origin/access/capabilities.ts';
import { bareAddress, fromRight } from '../../origin/http/client-address.ts';

/** Pieces checked without a server: the documented capability table, forwarded-header parsing. */

describe('the capability table in docs/reference/administrators.md', () => {
  it('lists every capability with exactly the roles that hold it', () => {
    const page = readFileSync(new URL('../../docs/reference/administrators.md', import.meta.url), 'utf8');
    const rows = new Map<string, string[]>();
    for (const line of page.split('\n')) {
      const cells = line.split('|').map((c) => c.trim());
      const name = /^`([a-z]+\.[a-z]+)`$/.exec(cells[1] ?? '')?.[1];
      if (name && cells.length === ADMIN_ROLES.length + 4) rows.set(name, cells.slice(3, 3 + ADMIN_ROLES.length));
    }
    expect([...rows.keys()]).toEqual([...CAPABILITIES]);
    for (const capability of CAPABILITIES) {
      expect(rows.get(capability), capability).toEqual(ADMIN_ROLES.map((role) => (roleHas(role, capability) ? 'yes' : '')));
    }
  });
});

describe('forwarded headers', () => {
  it('take the entry N hops from the right, or the leftmost when there are fewer', () => {
    const same = (v: string) => v;
    expect(fromRight('203.0.113.9', 1, same)).toBe('203.0.113.9');
    expect(fromRight('1.1.1.1, 2.2.2.2, 3.3.3.3', 1, same)).toBe('3.3.3.3');
    expect(fromRight('1.1.1.1, 2.2.2.2, 3.3.3.3', 2, same)).toBe('2.2.2.2');
    expect(fromRight('1.1.1.1,2.2.2.2', 5, same)).toBe('1.1.1.1');
    expect(fromRight(' , ', 1, same)).toBeUndefined();
    expect(fromRight(undefined, 1, same)).toBeUndefined();
  });

  it('strip brackets and ports from addresses', () => {
    expect(bareAddress('[2001:db8::1]:443')).toBe('2001:db8::1');
    expect(bareAddress('[::1]')).toBe('::1');
    expect(bareAddress('203.0.113.9:5000')).toBe('203.0.113.9');
    expect(bareAddress(' 2001:db8::1 ')).toBe('2001:db8::1');
    expect(bareAddress('::ffff:10.0.0.1')).toBe('::ffff:10.0.0.1');
  });
});
