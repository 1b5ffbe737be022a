import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FORMATS } from '../../origin/formats/index.ts';
import type { Scenario } from '../lib/context.ts';
import { ROOT } from '../lib/process.ts';
import type { Figure } from '../lib/report.ts';
import { median, ratio } from '../lib/stats.ts';

const run = promisify(execFile);

interface FormatRun {
  seconds: number;
  bytes: number;
  growthMiB: number;
}

async function worker(format: string, rows: number): Promise<FormatRun> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/lib/format-worker.ts'), format, String(rows)], {
    cwd: ROOT,
    env: { ...process.env, TZ: 'Europe/Paris' },
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

/**
 * Every serializer alone (no database, no HTTP) over 1M synthetic rows x 6
 * columns, each in its own process, against `JSON.stringify` of the same rows.
 * Not in the default set: `npm run bench -- formats`.
 */
export const formats: Scenario = {
  name: 'formats',
  async run(ctx) {
    const rows = Math.min(ctx.rows, 1_000_000);
    const figures: Figure[] = [];
    const samples: Record<string, FormatRun[]> = {};
    for (const format of FORMATS) {
      const base: FormatRun[] = [];
      const mine: FormatRun[] = [];
      for (let i = 0; i < ctx.runs; i++) {
        base.push(await worker('baseline', rows));
        mine.push(await worker(format, rows));
      }
      const baseRate = rows / median(base.map((r) => r.seconds));
      const rate = rows / median(mine.map((r) => r.seconds));
      ctx.log(`  ${format}: ${Math.round(rate)} rows/s (JSON.stringify ${Math.round(baseRate)}), +${Math.round(Math.max(...mine.map((r) => r.growthMiB)))} MiB`);
      figures.push(
        { name: `${format}: throughput`, value: rate, unit: 'rows/s', baselineName: 'JSON.stringify per row', baseline: baseRate, ratio: ratio(rate, baseRate) },
        {
          name: `${format}: peak RSS growth`,
          value: Math.max(...mine.map((r) => r.growthMiB)),
          unit: 'MiB',
          baselineName: 'JSON.stringify per row',
          baseline: Math.max(...base.map((r) => r.growthMiB)),
          ratio: ratio(Math.max(...mine.map((r) => r.growthMiB)), Math.max(...base.map((r) => r.growthMiB))),
        },
      );
      samples[format] = mine;
      samples[`${format}-baseline`] = base;
    }
    return {
      scenario: 'formats',
      title: `Serializers alone, ${rows.toLocaleString('en-US')} synthetic rows`,
      method: [
        'Each format\'s serializer (`origin/formats`) over synthetic rows (int, text, float, boolean, date, timestamptz) in batches of 1,000, bytes counted and dropped; no database, no HTTP.',
        'Baseline: `JSON.stringify` of each row into ~64 KiB chunks, alternating with the format, each run in a process of its own (so RSS growth is that run\'s).',
      ],
      figures,
      notes: [],
      samples,
    };
  },
};
