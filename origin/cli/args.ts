import { parseArgs } from 'node:util';
import { SluiceError } from '../errors.ts';
import type { Command, OptionSpec, ParsedArgs } from './command.ts';
import { KEY_VARIABLE } from './server.ts';

export const HELP: OptionSpec = { name: 'help', short: 'h', type: 'boolean', description: 'Print this help and exit' };
export const SERVER: OptionSpec = {
  name: 'server',
  type: 'string',
  value: 'URL',
  description: `Act through the origin at URL (its Management API) instead of opening the store; the key comes from ${KEY_VARIABLE}`,
};
export const QUIET: OptionSpec = { name: 'quiet', short: 'q', type: 'boolean', description: 'No progress lines on standard error (warnings and problems still)' };

/** Every option a command takes: its own, then those of every command acting on a store or server. */
export const optionsOf = (command: Command): OptionSpec[] => [...command.options, ...(command.usesBackend ? [SERVER, QUIET] : []), HELP];

/** Options people reach for to pass a key: refused with the way that works. */
const KEY_OPTIONS = /^--?(api-?key|key|token|secret)(=|$)/i;

const usage = (command: Command, message: string) =>
  new SluiceError('invalid_request', message, { hint: `Run \`sluice ${command.name} --help\` for its arguments and options.` });

/**
 * The arguments of one command, checked: unknown options, missing values,
 * values outside an option's choices and a wrong number of arguments are
 * refused naming the option and the way to see the right ones. With
 * `--help` nothing else is checked.
 */
export function parseCommandArgs(command: Command, argv: string[]): ParsedArgs {
  const specs = optionsOf(command);
  const keyOption = argv.find((arg) => KEY_OPTIONS.test(arg));
  if (keyOption) {
    throw new SluiceError('invalid_request', `${keyOption.split('=')[0]}: a key is never taken as an argument (it would be kept in shell history and visible to other users)`, {
      hint: `Set ${KEY_VARIABLE} in the environment instead.`,
    });
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(specs.map((spec) => [spec.name, { type: spec.type, ...(spec.short ? { short: spec.short } : {}) }])),
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    const { code, message } = err as { code?: string; message: string };
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const option = /'([^']+)'/.exec(message)?.[1] ?? message;
      throw usage(command, `\`sluice ${command.name}\` has no option ${option}`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const option = /'(--?[\w-]+)/.exec(message)?.[1] ?? 'an option';
      const spec = specs.find((s) => `--${s.name}` === option || `-${s.short}` === option);
      throw usage(command, spec?.type === 'boolean' ? `${option} takes no value` : `${option} needs a value${spec?.value ? ` (${spec.value})` : ''}`);
    }
    throw err;
  }
  const values = parsed.values as ParsedArgs['values'];
  if (values.help) return { values, positionals: parsed.positionals };
  for (const spec of specs) {
    const value = values[spec.name];
    if (typeof value !== 'string') continue;
    if (value === '') throw usage(command, `--${spec.name} needs a value${spec.value ? ` (${spec.value})` : ''}`);
    if (spec.choices && !spec.choices.includes(value)) {
      throw usage(command, `--${spec.name} ${JSON.stringify(value)} is not one of ${spec.choices.join(', ')}`);
    }
  }
  const wanted = command.positionals;
  if (parsed.positionals.length < wanted.length) {
    throw usage(command, `\`sluice ${command.name}\` needs ${wanted.slice(parsed.positionals.length).map((p) => p.name).join(' and ')}`);
  }
  if (parsed.positionals.length > wanted.length) {
    throw usage(command, `\`sluice ${command.name}\` takes ${wanted.length === 0 ? 'no arguments' : wanted.map((p) => p.name).join(' ')}; unexpected: ${parsed.positionals.slice(wanted.length).join(' ')}`);
  }
  return { values, positionals: parsed.positionals };
}
