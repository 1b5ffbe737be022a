import { readlinkSync } from 'node:fs';

/**
 * The server zone's IANA name, as `Intl.DateTimeFormat().resolvedOptions()`
 * reports it, without building a DateTimeFormat where that can be avoided:
 * the first one loads ICU's locale data, which stays resident for the life of
 * the process (~7 MiB of an idle origin's 118, 2026-11-27). The name comes
 * from where ICU finds the process's zone, TZ (a leading `:` dropped), else
 * the /etc/localtime link. It is taken as it is when ICU lists it as a
 * canonical zone (`Intl.supportedValuesOf`, which loads no locale data), or
 * answered as `UTC` when it is one of UTC's names; anything else (a link
 * such as US/Pacific, a POSIX rule, a path, an unknown name) goes to Intl,
 * which canonicalises it or finds no zone.
 */
export function readZoneName(): string | null {
  const candidate = hostZone();
  if (candidate !== null) {
    if (UTC_NAMES.has(candidate)) return 'UTC';
    if (Intl.supportedValuesOf('timeZone').includes(candidate)) return candidate;
  }
  const resolved = new Intl.DateTimeFormat().resolvedOptions().timeZone;
  return resolved && resolved !== 'Etc/Unknown' ? resolved : null;
}

/** The names ICU resolves to UTC, which its list of canonical zones leaves out (tzdata's `backward` links). */
const UTC_NAMES = new Set([
  'UTC', 'Etc/UTC', 'Etc/UCT', 'UCT', 'Etc/Universal', 'Universal', 'Etc/Zulu', 'Zulu', 'GMT', 'Etc/GMT',
  'Etc/GMT0', 'GMT0', 'Etc/GMT+0', 'Etc/GMT-0', 'GMT+0', 'GMT-0', 'Greenwich', 'Etc/Greenwich',
]);

const ZONEINFO = 'zoneinfo/';

function hostZone(): string | null {
  const tz = process.env.TZ;
  if (tz !== undefined) return tz.startsWith(':') ? tz.slice(1) : tz;
  try {
    const target = readlinkSync('/etc/localtime');
    const at = target.lastIndexOf(ZONEINFO);
    return at < 0 ? null : target.slice(at + ZONEINFO.length);
  } catch {
    return null;
  }
}
