import type { Command, OptionSpec } from './command.ts';
import { HELP, optionsOf } from './args.ts';
import { KEY_VARIABLE } from './server.ts';

const WIDTH = 80;

/** `text` broken into lines of at most WIDTH, each after `indent` spaces (the first after `first` when given). */
function wrap(text: string, indent: number, first = ' '.repeat(indent)): string[] {
  const lines: string[] = [];
  let line = first;
  let blank = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!blank && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = ' '.repeat(indent);
      blank = true;
    }
    line += blank ? word : ` ${word}`;
    blank = false;
  }
  lines.push(line);
  return lines;
}

/** Two columns: the term, then its text wrapped under a hanging indent. */
function table(rows: Array<[string, string]>): string[] {
  const column = Math.min(Math.max(...rows.map(([term]) => term.length)) + 4, 30);
  return rows.flatMap(([term, text]) => {
    const head = `  ${term}`;
    return head.length + 1 >= column ? [head, ...wrap(text, column)] : wrap(text, column, head.padEnd(column));
  });
}

const optionTerm = (spec: OptionSpec) => `${spec.short ? `-${spec.short}, ` : '    '}--${spec.name}${spec.value ? ` ${spec.value}` : ''}`;

const optionText = (spec: OptionSpec) => (spec.choices ? `${spec.description} [${spec.choices.join('|')}]` : spec.description);

export const ENVIRONMENT: Array<[string, string]> = [
  [KEY_VARIABLE, 'With --server: the key sent to the origin, the server key (SLUICE_API_KEY) or an administrator token (slc_adm_...). Never an argument. Required with --server.'],
  ['SLUICE_DATA_DIR', 'Without --server: the origin\'s data folder, whose embedded store is opened (default ./.sluice). While an origin runs on it, use --server.'],
  ['SLUICE_DATABASE_URL', 'Without --server: the PostgreSQL store to open instead (postgres://...), which running origins may share.'],
  ['SLUICE_SECRET_KEY, SLUICE_AUDIT_KEY', 'Without --server: give the origin\'s own values, so stored passwords and audit entries are handled as the origin handles them. Every other SLUICE_* variable the origin reads applies too.'],
  ['SLUICE_LOG_LEVEL', 'Without --server: store warnings on standard error at this level and above (default warn).'],
  ['NO_COLOR', 'Set: plans are never coloured (they are coloured only on a terminal).'],
];

const WHERE = [
  'Without --server a command opens the store itself, as the origin does: the embedded store in SLUICE_DATA_DIR, or the PostgreSQL store of SLUICE_DATABASE_URL. Changes are audited with the actor cli.',
  `With --server URL it calls a running origin's Management API with the key in ${KEY_VARIABLE}, and the changes are the key's administrator's.`,
];

export function commandHelp(command: Command): string {
  const args = command.positionals.map((p) => ` ${p.name}`).join('');
  const lines = [`Usage: sluice ${command.name}${args} [options]`, '', ...wrap(command.summary, 0), ''];
  for (const paragraph of command.description) lines.push(...wrap(paragraph, 0), '');
  if (command.positionals.length > 0) lines.push('Arguments:', ...table(command.positionals.map((p) => [p.name, p.description])), '');
  lines.push('Options:', ...table(optionsOf(command).map((spec) => [optionTerm(spec), optionText(spec)])), '');
  if (command.usesBackend) {
    lines.push('Where it acts:');
    for (const paragraph of WHERE) lines.push(...wrap(paragraph, 2));
    lines.push('', 'Environment:', ...table(ENVIRONMENT), '');
  }
  lines.push('Exit codes:', ...table(command.exitCodes.map(([code, meaning]) => [String(code), meaning])), '');
  lines.push('Examples:', ...command.examples.map((example) => `  ${example}`));
  return `${lines.join('\n')}\n`;
}

/** `sluice config --help`: a group's commands, each with its summary. */
export function groupHelp(group: string, commands: Command[]): string {
  const members = commands.filter((command) => command.name.startsWith(`${group} `));
  const lines = [
    `Usage: sluice ${group} <command> [arguments] [options]`,
    '',
    'Commands:',
    ...table(members.map((command) => [command.name, command.summary])),
    '',
    ...wrap(`Run \`sluice ${group} <command> --help\` for a command's arguments, options and exit codes. Reference: docs/reference/cli.md`, 0),
  ];
  return `${lines.join('\n')}\n`;
}

export function programHelp(commands: Command[]): string {
  const lines = [
    'sluice: configuration as code and collection bundles for a Sluice server',
    '',
    'Usage: sluice <command> [arguments] [options]',
    '',
    'Commands:',
    ...table(commands.map((command) => [command.name, command.summary])),
    '',
    'Options:',
    ...table([
      [optionTerm(HELP), 'Print this help, or with a command its own help'],
      ['-v, --version', 'Print the version'],
    ]),
    '',
    'Where commands act:',
    ...WHERE.flatMap((paragraph) => wrap(paragraph, 2)),
    '',
    'Environment:',
    ...table(ENVIRONMENT),
    '',
    'Exit codes:',
    ...table([
      ['0', 'done'],
      ['1', 'a problem: bad arguments, a file that cannot be applied or imported, the store or server unreachable or refusing'],
      ['2', '`config diff` only: the file would create, change or delete something (objects only to take under management are no change)'],
    ]),
    '',
    ...wrap("Run `sluice <command> --help` for a command's arguments, options and exit codes. Reference: docs/reference/cli.md", 0),
  ];
  return `${lines.join('\n')}\n`;
}
