import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Machine, machineLines } from './machine.ts';

/** One measured figure next to the baseline it is read against. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  baselineName: string;
  baseline: number;
  /** value / baseline. */
  ratio: number;
  goal?: { text: string; met: boolean };
}

export interface ScenarioResult {
  scenario: string;
  title: string;
  /** What was measured and against what, in a few lines. */
  method: string[];
  figures: Figure[];
  notes: string[];
  /** Every run's raw numbers, for the JSON file. */
  samples: Record<string, unknown>;
}

export interface RunInfo {
  date: string;
  startedAt: string;
  machine: Machine;
  options: Record<string, unknown>;
  commit: string;
  /** 1, 5 and 15-minute load averages when the scenario ended. */
  loadAverageEnd: number[];
}

const fmt = (n: number) =>
  !Number.isFinite(n) ? String(n) : Math.abs(n) >= 1000 ? Math.round(n).toLocaleString('en-US') : String(Math.round(n * 100) / 100);

function markdown(result: ScenarioResult, info: RunInfo): string {
  const lines = [
    `# ${result.title}`,
    '',
    `Scenario \`${result.scenario}\`, ${info.startedAt}, commit ${info.commit}. Options: \`${JSON.stringify(info.options)}\`.`,
    '',
    '## Machine',
    '',
    ...machineLines(info.machine),
    `- Load average at end: ${info.loadAverageEnd.join(', ')}`,
    '',
    '## Method',
    '',
    ...result.method.map((m) => `- ${m}`),
    '',
    '## Figures',
    '',
    '| Figure | Value | Baseline | Ratio | Goal |',
    '|---|---|---|---|---|',
    ...result.figures.map((f) => {
      const goal = f.goal ? `${f.goal.met ? 'met' : '**missed**'}: ${f.goal.text}` : '';
      return `| ${f.name} | ${fmt(f.value)} ${f.unit} | ${fmt(f.baseline)} ${f.unit} (${f.baselineName}) | ${fmt(f.ratio)} | ${goal} |`;
    }),
    '',
  ];
  if (result.notes.length) lines.push('## Notes', '', ...result.notes.map((n) => `- ${n}`), '');
  return lines.join('\n');
}

/** Writes `<date>-<scenario>[-tag].md` and `.json` into `dir`; returns the md path. */
export function writeResult(dir: string, result: ScenarioResult, info: RunInfo, tag?: string): string {
  mkdirSync(dir, { recursive: true });
  const base = join(dir, `${info.date}-${result.scenario}${tag ? `-${tag}` : ''}`);
  writeFileSync(`${base}.md`, markdown(result, info));
  writeFileSync(`${base}.json`, `${JSON.stringify({ ...info, ...result }, null, 2)}\n`);
  return `${base}.md`;
}
