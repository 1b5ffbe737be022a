import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Peak resident memory of another process, from /proc/<pid>/status. The
 * kernel's high-water mark (VmHWM) is reset before a run through
 * /proc/<pid>/clear_refs ("5"), so it covers that run alone; VmRSS is also
 * polled, in case the reset is not permitted.
 */

const MIB = 2 ** 20;

function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
}

export function rssMiB(pid: number): number {
  return statusKiB(pid, 'VmRSS') / 1024;
}

export interface PeakWatch {
  /** Stops polling; the peak in MiB since the watch started. */
  stop(): number;
}

/** Resets the high-water mark of `pid` (when permitted) and polls its RSS until stopped. */
export function watchPeak(pid: number, intervalMs = 25): PeakWatch {
  let resetWorked = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    resetWorked = false;
  }
  let polled = statusKiB(pid, 'VmRSS');
  const timer = setInterval(() => {
    try {
      polled = Math.max(polled, statusKiB(pid, 'VmRSS'));
    } catch {
      // the process went away: keep what was seen
    }
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      let hwm = 0;
      try {
        if (resetWorked) hwm = statusKiB(pid, 'VmHWM');
        polled = Math.max(polled, statusKiB(pid, 'VmRSS'));
      } catch {
        // gone
      }
      return Math.max(hwm, polled) / 1024;
    },
  };
}

/** The peak RSS growth of this process while `work` runs (sampled). */
export async function ownPeakGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growthMiB: number }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 25);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, growthMiB: (peak - base) / MIB };
  } finally {
    clearInterval(timer);
  }
}
