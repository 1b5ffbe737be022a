import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * origin/time.ts reads the server zone's name and offsets without
 * Intl.DateTimeFormat where it can (zone-name.ts). Each case runs
 * fixtures/time-zone-child.ts in its own process with its TZ, since Intl's
 * default zone is fixed per process, and compares with what Intl answers.
 */

const CHILD = fileURLToPath(new URL('fixtures/time-zone-child.ts', import.meta.url));

interface ChildReport {
  name: string | null;
  intlName: string | null;
  builtByTime: number;
  checked: number;
  mismatches: unknown[];
}

function child(tz: string | undefined, ...args: string[]): Promise<ChildReport> {
  const env = { ...process.env };
  if (tz === undefined) delete env.TZ;
  else env.TZ = tz;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', CHILD, ...args], { env }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as ChildReport);
    });
  });
}

describe('the server zone', () => {
  it('has the offsets Intl gives, in zones with odd rules, over eight centuries', async () => {
    const zones = ['Europe/Paris', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Apia', 'Africa/Casablanca', 'Europe/Dublin', 'America/St_Johns', 'Pacific/Chatham'];
    const reports = await Promise.all(zones.map((zone) => child(zone, '--offsets')));
    for (const [i, report] of reports.entries()) {
      expect({ zone: zones[i], mismatches: report.mismatches }).toEqual({ zone: zones[i], mismatches: [] });
      expect(report.checked).toBeGreaterThan(15_000);
    }
  });

  it('has the name Intl gives, whatever TZ holds', async () => {
    const values = [undefined, 'Europe/Paris', ':Europe/Paris', 'Etc/UTC', 'GMT', 'Asia/Calcutta', 'US/Pacific', 'America/Argentina/Buenos_Aires', 'Foo/Bar', 'CET-1CEST', '', '/usr/share/zoneinfo/Asia/Tokyo'];
    const reports = await Promise.all(values.map((tz) => child(tz)));
    for (const [i, report] of reports.entries()) {
      expect({ tz: values[i], name: report.name }).toEqual({ tz: values[i], name: report.intlName });
    }
  });

  it('builds no DateTimeFormat for a canonical zone or UTC', async () => {
    for (const tz of ['Europe/Paris', ':Asia/Tokyo', 'Etc/UTC', 'UTC']) {
      const report = await child(tz);
      expect({ tz, built: report.builtByTime }).toEqual({ tz, built: 0 });
    }
  });
});
