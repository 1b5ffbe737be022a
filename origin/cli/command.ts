import type { Backend } from './backend.ts';
import type { Output } from './output.ts';

/**
 * One `sluice` command: what its help prints and what it runs. Help is made
 * from these fields only, so every option a command parses is documented.
 */

export interface OptionSpec {
  name: string;
  type: 'string' | 'boolean';
  /** The value's placeholder in help: `FILE`, `URL`. */
  value?: string;
  short?: string;
  description: string;
  /** The values a string option takes. */
  choices?: readonly string[];
}

export interface Positional {
  name: string;
  description: string;
}

export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

export interface RunContext {
  args: ParsedArgs;
  out: Output;
  /** The store or server the command acts on, opened on first use. */
  backend(): Promise<Backend>;
}

export interface Command {
  /** `config diff` */
  name: string;
  summary: string;
  positionals: Positional[];
  options: OptionSpec[];
  /** Paragraphs of help after the usage line. */
  description: string[];
  exitCodes: Array<[number, string]>;
  examples: string[];
  /** Acts on a store or a server: takes `--server` and the store variables. */
  usesBackend: boolean;
  /** The exit code. */
  run(ctx: RunContext): Promise<number>;
}
