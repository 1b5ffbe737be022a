import type { ScenarioResult } from './report.ts';

/** What every scenario gets from the runner. */
export interface BenchContext {
  /** A temporary folder for this run (data files, logs, downloads). */
  workDir: string;
  /** Rows of the streaming scenarios. */
  rows: number;
  /** Repetitions of each timed measurement (the median is reported). */
  runs: number;
  /** Seconds of each load-test measurement. */
  seconds: number;
  /** PostgreSQL server the database scenarios use. */
  pgUrl: string;
  /** The DuckDB file with the benchmark tables, built on first use. */
  duckFile(): Promise<string>;
  /** Creates the PostgreSQL lookup table, once. */
  pgReady(): Promise<void>;
  log(message: string): void;
}

export interface Scenario {
  name: string;
  run(ctx: BenchContext): Promise<ScenarioResult>;
}
