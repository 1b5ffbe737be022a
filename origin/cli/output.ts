/**
 * Where a command writes: its result on standard output (a file's text, a
 * plan, a JSON document), everything else on standard error, so
 * `sluice … > file` and `sluice … | jq` get the result alone. Progress lines
 * are left out with `--quiet`; warnings and problems never are.
 */
export interface Output {
  /** Resolves once written: the process may exit right after. */
  result(text: string): Promise<void>;
  progress(text: string): void;
  warn(text: string): void;
  /** Standard output is a terminal and NO_COLOR is not set. */
  readonly colour: boolean;
}

export function processOutput({ quiet }: { quiet: boolean }): Output {
  return {
    result: (text) => new Promise((resolve, reject) => process.stdout.write(text, (err) => (err ? reject(err) : resolve()))),
    progress: (text) => {
      if (!quiet) process.stderr.write(`${text}\n`);
    },
    warn: (text) => process.stderr.write(`warning: ${text}\n`),
    colour: process.stdout.isTTY === true && !process.env.NO_COLOR,
  };
}
