/**
 * IPv4 and IPv6 addresses and CIDR ranges for `allowed_ips`. Shared (no Node
 * built-ins) so the origin and the edge admit the same addresses.
 *
 * An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, what a dual-stack socket
 * reports for an IPv4 peer) is the IPv4 address it carries, and a range
 * inside `::ffff:0:0/96` is the IPv4 range it covers, so either spelling
 * matches the other.
 */

export type IpFamily = 4 | 6;

export interface IpAddress {
  family: IpFamily;
  /** The address as an unsigned integer (32 or 128 bits). */
  value: bigint;
}

export interface CidrRange {
  family: IpFamily;
  /** The first address of the range: host bits are zero. */
  network: bigint;
  /** Leading bits that must match: 0-32 or 0-128; a full-length prefix is a single address. */
  prefix: number;
}

const BITS: Record<IpFamily, number> = { 4: 32, 6: 128 };
const OCTET = /^(0|[1-9]\d{0,2})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/;
const PREFIX = /^(0|[1-9]\d{0,2})$/;

function parseIpv4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    // Leading zeros are refused: some parsers read them as octal.
    if (!OCTET.test(part) || Number(part) > 255) return null;
    value = (value << 8n) | BigInt(part);
  }
  return value;
}

/** The 16-bit groups of one side of `::`; an IPv4 tail counts as two groups. */
function groupsOf(text: string, ipv4TailAllowed: boolean): number[] | null {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: number[] = [];
  for (const [i, part] of parts.entries()) {
    if (ipv4TailAllowed && i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (v4 === null) return null;
      groups.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
    } else if (HEX_GROUP.test(part)) {
      groups.push(parseInt(part, 16));
    } else {
      return null;
    }
  }
  return groups;
}

function parseIpv6(text: string): bigint | null {
  const halves = text.toLowerCase().split('::');
  if (halves.length > 2) return null;
  let groups: number[];
  if (halves.length === 2) {
    const head = groupsOf(halves[0]!, false);
    const tail = groupsOf(halves[1]!, true);
    // `::` stands for at least one zero group.
    if (!head || !tail || head.length + tail.length > 7) return null;
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    const all = groupsOf(halves[0]!, true);
    if (!all || all.length !== 8) return null;
    groups = all;
  }
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

/** An IPv4-mapped IPv6 value (`::ffff:a.b.c.d`) as its IPv4 value, else null. */
const mappedIpv4 = (value: bigint): bigint | null => (value >> 32n === 0xffffn ? value & 0xffffffffn : null);

/**
 * Parses one address. A zone (`fe80::1%eth0`) is accepted and ignored only
 * when `allowZone` (an address a socket reported); ranges never carry one.
 */
export function parseIp(text: string, { allowZone = false } = {}): IpAddress | null {
  let trimmed = text.trim();
  const zone = trimmed.indexOf('%');
  if (zone >= 0) {
    if (!allowZone || !trimmed.includes(':')) return null;
    trimmed = trimmed.slice(0, zone);
  }
  if (!trimmed.includes(':')) {
    const v4 = parseIpv4(trimmed);
    return v4 === null ? null : { family: 4, value: v4 };
  }
  const v6 = parseIpv6(trimmed);
  if (v6 === null) return null;
  const v4 = mappedIpv4(v6);
  return v4 === null ? { family: 6, value: v6 } : { family: 4, value: v4 };
}

const hostMask = (family: IpFamily, prefix: number): bigint => (1n << BigInt(BITS[family] - prefix)) - 1n;

/**
 * Parses an address or a `address/prefix` range; null when malformed. Host
 * bits set below the prefix are cleared (`10.1.2.3/8` is `10.0.0.0/8`). A
 * range within `::ffff:0:0/96` becomes the IPv4 range it covers.
 */
export function parseCidr(text: string): CidrRange | null {
  const trimmed = text.trim();
  const slash = trimmed.indexOf('/');
  const addressText = slash < 0 ? trimmed : trimmed.slice(0, slash);
  if (addressText.includes('%')) return null;
  const isV6 = addressText.includes(':');
  const raw = isV6 ? parseIpv6(addressText) : parseIpv4(addressText);
  if (raw === null) return null;
  let family: IpFamily = isV6 ? 6 : 4;
  let prefix = BITS[family];
  if (slash >= 0) {
    const prefixText = trimmed.slice(slash + 1);
    if (!PREFIX.test(prefixText) || Number(prefixText) > BITS[family]) return null;
    prefix = Number(prefixText);
  }
  let value = raw;
  if (family === 6 && prefix >= 96 && mappedIpv4(raw) !== null) {
    family = 4;
    value = raw & 0xffffffffn;
    prefix -= 96;
  }
  return { family, network: value & ~hostMask(family, prefix), prefix };
}

function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

/** RFC 5952: lower-case, no leading zeros, the longest run of two or more zero groups (the first on a tie) as `::`. */
function formatIpv6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  const hex = (list: number[]) => list.map((g) => g.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

/** The canonical text of a parsed range: a single address without its prefix. */
export function formatCidr(range: CidrRange): string {
  const address = range.family === 4 ? formatIpv4(range.network) : formatIpv6(range.network);
  return range.prefix === BITS[range.family] ? address : `${address}/${range.prefix}`;
}

/** `parseCidr` then `formatCidr`: how `allowed_ips` entries are stored; null when malformed. */
export function canonicalCidr(text: string): string | null {
  const range = parseCidr(text);
  return range ? formatCidr(range) : null;
}

export function rangeContains(range: CidrRange, ip: IpAddress): boolean {
  return range.family === ip.family && (ip.value & ~hostMask(range.family, range.prefix)) === range.network;
}

/** Parsed ranges by their text: authentication asks about the same few ranges on every request. */
const parsedRanges = new Map<string, CidrRange | null>();
const MAX_PARSED_RANGES = 10_000;

function cachedRange(text: string): CidrRange | null {
  let range = parsedRanges.get(text);
  if (range === undefined) {
    range = parseCidr(text);
    if (parsedRanges.size >= MAX_PARSED_RANGES) parsedRanges.clear();
    parsedRanges.set(text, range);
  }
  return range;
}

/**
 * Whether a client address is inside any of `ranges`. A malformed address
 * matches nothing (fail closed); a malformed range is skipped.
 */
export function ipMatches(ip: string, ranges: string[]): boolean {
  const address = parseIp(ip, { allowZone: true });
  if (!address) return false;
  return ranges.some((text) => {
    const range = cachedRange(text);
    return range !== null && rangeContains(range, address);
  });
}
