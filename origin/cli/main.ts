import { readFileSync } from 'node:fs';
import { SluiceError } from '../errors.ts';
import { projectPath } from '../paths.ts';
import { parseCommandArgs } from './args.ts';
import type { Backend } from './backend.ts';
import type { Command, ParsedArgs } from './command.ts';
import { COMMANDS } from './commands/index.ts';
import { commandHelp, groupHelp, programHelp } from './help.ts';
import { type Output, processOutput } from './output.ts';
import { describeProblem } from './problems.ts';
import { serverBackend, serverUrl } from './server.ts';

/**
 * `sluice`: finds the command named by the first words, parses its options,
 * runs it against the store or a server, and turns every failure into
 * lines on standard error (and, with `--json`, one JSON document on
 * standard output) and exit code 1.
 */

/** Commands that write: on a data folder with no store yet they make one (dry runs do not). */
const WRITES = new Set(['config apply', 'collection import']);

const isHelp = (word: string | undefined) => word === '--help' || word === '-h';

/** A first word naming commands (`config`, `collection`), not one command. */
const isGroup = (word: string | undefined) => word !== undefined && COMMANDS.some((c) => c.name.startsWith(`${word} `));

function findCommand(argv: string[]): { command: Command; rest: string[] } | { problem: string } {
  const words = argv.slice(0, 2).join(' ');
  const command = COMMANDS.find((c) => words === c.name);
  if (command) return { command, rest: argv.slice(2) };
  const group = COMMANDS.filter((c) => c.name.startsWith(`${argv[0]} `));
  if (group.length > 0) {
    const given = argv[1] === undefined || argv[1].startsWith('-') ? `\`sluice ${argv[0]}\` needs a command` : `\`sluice ${argv[0]}\` has no command ${JSON.stringify(argv[1])}`;
    return { problem: `${given}: ${group.map((c) => c.name.split(' ')[1]).join(', ')}` };
  }
  return { problem: `unknown command ${JSON.stringify(argv[0])}: commands are ${COMMANDS.map((c) => c.name).join(', ')}` };
}

async function runCommand(command: Command, args: ParsedArgs, out: Output): Promise<number> {
  let opened: Backend | undefined;
  const server = args.values.server as string | undefined;
  const backend = async () => {
    // The store's modules (drivers, drizzle, PGlite) load only for a command that opens it: help and new-key stay quick.
    opened ??= server !== undefined
      ? serverBackend(serverUrl(server), process.env.SLUICE_CLI_API_KEY)
      : await (await import('./local.ts')).localBackend(out, { create: WRITES.has(command.name) && args.values['dry-run'] !== true });
    return opened;
  };
  try {
    return await command.run({ args, out, backend });
  } catch (err) {
    const file = command.positionals[0]?.name === 'FILE' ? args.positionals[0] : undefined;
    const problem = describeProblem(err, file === '-' ? '(standard input)' : file);
    process.stderr.write(`${problem.lines.join('\n')}\n`);
    if (args.values.json) await out.result(`${JSON.stringify(problem.json, null, 2)}\n`);
    return 1;
  } finally {
    await opened?.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  const first = argv[0];
  if (first === undefined) {
    process.stderr.write(programHelp(COMMANDS));
    return 1;
  }
  if (isHelp(first) || first === 'help') {
    const named = argv.length > 1 ? findCommand(argv.slice(1)) : undefined;
    process.stdout.write(named && 'command' in named ? commandHelp(named.command) : isGroup(argv[1]) ? groupHelp(argv[1], COMMANDS) : programHelp(COMMANDS));
    return 0;
  }
  // `sluice config --help`: the group's commands.
  if (isGroup(first) && isHelp(argv[1])) {
    process.stdout.write(groupHelp(first, COMMANDS));
    return 0;
  }
  if (first === '--version' || first === '-v') {
    process.stdout.write(`sluice ${JSON.parse(readFileSync(projectPath('package.json'), 'utf8')).version}\n`);
    return 0;
  }
  const found = findCommand(argv);
  if ('problem' in found) {
    process.stderr.write(`sluice: ${found.problem}\nRun \`sluice --help\` for the commands.\n`);
    return 1;
  }
  const { command, rest } = found;
  let args: ParsedArgs;
  try {
    args = parseCommandArgs(command, rest);
  } catch (err) {
    if (!(err instanceof SluiceError)) throw err;
    process.stderr.write(`${describeProblem(err).lines.join('\n')}\n`);
    return 1;
  }
  if (args.values.help) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  return runCommand(command, args, processOutput({ quiet: args.values.quiet === true }));
}

process.exit(await main(process.argv.slice(2)));
