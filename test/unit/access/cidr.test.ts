import { describe, expect, it } from 'vitest';
import { canonicalCidr, ipMatches, parseCidr, parseIp } from '../../../shared/access/cidr.ts';

describe('parseIp', () => {
  it('reads IPv4 dotted quads', () => {
    expect(parseIp('0.0.0.0')).toEqual({ family: 4, value: 0n });
    expect(parseIp('255.255.255.255')).toEqual({ family: 4, value: 0xffffffffn });
    expect(parseIp(' 10.1.2.3 ')).toEqual({ family: 4, value: 0x0a010203n });
  });

  it('refuses malformed IPv4', () => {
    for (const text of ['', '1.2.3', '1.2.3.4.5', '256.0.0.1', '1.2.3.-1', '01.2.3.4', '1.2.3.4 5', 'a.b.c.d', '1..2.3', '1.2.3.4/']) {
      expect(parseIp(text), text).toBeNull();
    }
  });

  it('reads IPv6 in every spelling', () => {
    expect(parseIp('::')).toEqual({ family: 6, value: 0n });
    expect(parseIp('::1')).toEqual({ family: 6, value: 1n });
    expect(parseIp('2001:db8::')).toEqual({ family: 6, value: 0x20010db8n << 96n });
    expect(parseIp('2001:DB8:0:0:0:0:0:1')).toEqual(parseIp('2001:db8::1'));
    expect(parseIp('2001:0db8:0000:0000:0000:0000:0000:0001')).toEqual(parseIp('2001:db8::1'));
    expect(parseIp('64:ff9b::192.0.2.33')).toEqual(parseIp('64:ff9b::c000:221'));
  });

  it('refuses malformed IPv6', () => {
    for (const text of [':', ':::', '1::2::3', '1:2:3:4:5:6:7', '1:2:3:4:5:6:7:8:9', '12345::', 'g::1', '1:2:3:4:5:6:7::8', '::1.2.3', '1.2.3.4::', '::ffff:1.2.3.4:5', ':1::', '1::2:']) {
      expect(parseIp(text), text).toBeNull();
    }
  });

  it('takes an IPv4-mapped IPv6 address as the IPv4 address it carries', () => {
    expect(parseIp('::ffff:1.2.3.4')).toEqual({ family: 4, value: 0x01020304n });
    expect(parseIp('::FFFF:0102:0304')).toEqual({ family: 4, value: 0x01020304n });
    // IPv4-compatible (deprecated) and other embeddings stay IPv6.
    expect(parseIp('::1.2.3.4')?.family).toBe(6);
  });

  it('ignores a zone only where allowed (a socket address)', () => {
    expect(parseIp('fe80::1%eth0')).toBeNull();
    expect(parseIp('fe80::1%eth0', { allowZone: true })).toEqual(parseIp('fe80::1'));
    expect(parseIp('1.2.3.4%eth0', { allowZone: true })).toBeNull();
  });
});

describe('parseCidr and canonicalCidr', () => {
  it('reads ranges and clears host bits', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ family: 4, network: 0x0a000000n, prefix: 8 });
    expect(parseCidr('10.1.2.3/8')).toEqual({ family: 4, network: 0x0a000000n, prefix: 8 });
    expect(parseCidr('0.0.0.0/0')).toEqual({ family: 4, network: 0n, prefix: 0 });
    expect(parseCidr('1.2.3.4')).toEqual({ family: 4, network: 0x01020304n, prefix: 32 });
    expect(parseCidr('2001:db8::1/32')).toEqual({ family: 6, network: 0x20010db8n << 96n, prefix: 32 });
    expect(parseCidr('::/0')).toEqual({ family: 6, network: 0n, prefix: 0 });
  });

  it('refuses bad prefixes and zones', () => {
    for (const text of ['10.0.0.0/33', '10.0.0.0/', '10.0.0.0/-1', '10.0.0.0/08', '10.0.0.0/8/8', '::/129', '::/1a', 'fe80::1%eth0/64', '/8', 'any', '*']) {
      expect(parseCidr(text), text).toBeNull();
    }
  });

  it('writes the canonical form: no /32 or /128, RFC 5952 for IPv6, mapped ranges as IPv4', () => {
    const cases: Array<[string, string]> = [
      ['1.2.3.4', '1.2.3.4'],
      ['1.2.3.4/32', '1.2.3.4'],
      ['192.168.1.77/24', '192.168.1.0/24'],
      ['0.0.0.0/0', '0.0.0.0/0'],
      ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
      ['2001:db8::1/128', '2001:db8::1'],
      ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
      ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
      ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
      ['0:0:0:0:0:0:0:0', '::'],
      ['::/0', '::/0'],
      ['fe80::abcd/10', 'fe80::/10'],
      ['1:0:0:0:0:0:0:0', '1::'],
      ['::ffff:10.0.0.1', '10.0.0.1'],
      ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
      ['::ffff:0:0/96', '0.0.0.0/0'],
      ['::ffff:0:0/95', '::fffe:0:0/95'],
    ];
    for (const [input, canonical] of cases) expect(canonicalCidr(input), input).toBe(canonical);
    expect(canonicalCidr('300.1.1.1')).toBeNull();
  });

  it('is stable: the canonical form parses to itself', () => {
    for (const text of ['10.9.8.7/13', '2001:db8:85a3::8a2e:370:7334/64', '::ffff:1.2.3.4/120', 'ff02::1']) {
      const once = canonicalCidr(text)!;
      expect(canonicalCidr(once)).toBe(once);
    }
  });
});

describe('ipMatches', () => {
  it('matches addresses inside IPv4 ranges and single addresses', () => {
    expect(ipMatches('10.20.30.40', ['10.0.0.0/8'])).toBe(true);
    expect(ipMatches('11.0.0.1', ['10.0.0.0/8'])).toBe(false);
    expect(ipMatches('192.168.1.255', ['192.168.1.0/24'])).toBe(true);
    expect(ipMatches('192.168.2.0', ['192.168.1.0/24'])).toBe(false);
    expect(ipMatches('203.0.113.9', ['203.0.113.9'])).toBe(true);
    expect(ipMatches('203.0.113.10', ['203.0.113.9'])).toBe(false);
    expect(ipMatches('8.8.8.8', ['0.0.0.0/0'])).toBe(true);
  });

  it('matches IPv6 ranges', () => {
    expect(ipMatches('2001:db8::abcd', ['2001:db8::/32'])).toBe(true);
    expect(ipMatches('2001:db9::1', ['2001:db8::/32'])).toBe(false);
    expect(ipMatches('::1', ['::1'])).toBe(true);
    expect(ipMatches('fe80::1%lo', ['fe80::/10'])).toBe(true);
  });

  it('matches an IPv4-mapped address against IPv4 ranges, and an IPv4 address against mapped ranges', () => {
    expect(ipMatches('::ffff:127.0.0.1', ['127.0.0.0/8'])).toBe(true);
    expect(ipMatches('::ffff:7f00:1', ['127.0.0.1'])).toBe(true);
    expect(ipMatches('127.0.0.1', ['::ffff:127.0.0.0/104'])).toBe(true);
    expect(ipMatches('::ffff:128.0.0.1', ['127.0.0.0/8'])).toBe(false);
  });

  it('never mixes families otherwise', () => {
    expect(ipMatches('::1', ['0.0.0.0/0'])).toBe(false);
    expect(ipMatches('127.0.0.1', ['::/0'])).toBe(false);
    expect(ipMatches('::', ['0.0.0.0'])).toBe(false);
  });

  it('fails closed on a malformed address and skips malformed ranges', () => {
    expect(ipMatches('not-an-ip', ['0.0.0.0/0', '::/0'])).toBe(false);
    expect(ipMatches('', ['0.0.0.0/0'])).toBe(false);
    expect(ipMatches('10.0.0.1', ['garbage', '10.0.0.0/8'])).toBe(true);
    expect(ipMatches('10.0.0.1', [])).toBe(false);
  });

  it('tries every range', () => {
    const ranges = ['192.168.0.0/16', '2001:db8::/32', '10.0.0.0/8'];
    expect(ipMatches('10.1.1.1', ranges)).toBe(true);
    expect(ipMatches('2001:db8:1::1', ranges)).toBe(true);
    expect(ipMatches('172.16.0.1', ranges)).toBe(false);
  });
});
