import { describe, expect, it } from 'vitest';
import { optionsOf } from '../../origin/cli/args.ts';
import { COMMANDS } from '../../origin/cli/commands/index.ts';
import { shown, sluice } from './run-cli.ts';

/**
 * `sluice --help` and `sluice <command> --help` as processes: complete (every
 * option the command parses, its exit codes, the environment), and the usage
 * mistakes refused with exit 1, naming the mistake and where help is.
 */

describe('sluice --help', () => {
  it('lists every command, the environment and the exit codes', async () => {
    const run = await sluice(['--help']);
    expect(run.code, shown(run)).toBe(0);
    for (const command of COMMANDS) expect(run.stdout).toContain(command.name);
    for (const variable of ['SLUICE_CLI_API_KEY', 'SLUICE_DATA_DIR', 'SLUICE_DATABASE_URL']) expect(run.stdout).toContain(variable);
    expect(run.stdout).toMatch(/Exit codes:\n {2}0 +done\n {2}1 +a problem/);
    expect(run.stdout).toMatch(/ {2}2 +`config diff` only/);
    expect(run.stderr).toBe('');
  });

  it('prints the help on standard error and exits 1 with no command', async () => {
    const run = await sluice([]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Usage: sluice <command>');
  });

  it('prints the version', async () => {
    const run = await sluice(['--version']);
    expect(run.code, shown(run)).toBe(0);
    expect(run.stdout).toMatch(/^sluice \d+\.\d+\.\d+\n$/);
  });
});

describe.each(COMMANDS.map((command) => [command.name, command] as const))('sluice %s --help', (name, command) => {
  it('documents every option, argument and exit code', async () => {
    const run = await sluice([...name.split(' '), '--help']);
    expect(run.code, shown(run)).toBe(0);
    expect(run.stdout).toContain(`Usage: sluice ${name}`);
    for (const option of optionsOf(command)) expect(run.stdout).toContain(`--${option.name}`);
    for (const positional of command.positionals) expect(run.stdout).toContain(positional.name);
    for (const [code] of command.exitCodes) expect(run.stdout).toMatch(new RegExp(`^ {2}${code} `, 'm'));
    if (command.usesBackend) {
      expect(run.stdout).toContain('--server URL');
      expect(run.stdout).toContain('SLUICE_CLI_API_KEY');
    }
  });
});

describe.each([...new Set(COMMANDS.map((command) => command.name.split(' ')[0]))])('sluice %s --help', (group) => {
  const members = COMMANDS.filter((command) => command.name.startsWith(`${group} `));
  it.each([[[group, '--help']], [[group, '-h']], [['help', group]]])('%j prints the group\'s commands and exits 0', async (args) => {
    const run = await sluice(args);
    expect(run.code, shown(run)).toBe(0);
    expect(run.stdout).toContain(`Usage: sluice ${group} <command>`);
    for (const command of members) expect(run.stdout).toContain(`${command.name}  `);
    expect(run.stderr).toBe('');
  });
});

describe('usage mistakes', () => {
  it('help is also `sluice help <command>`', async () => {
    const run = await sluice(['help', 'config', 'diff']);
    expect(run.code, shown(run)).toBe(0);
    expect(run.stdout).toContain('Usage: sluice config diff FILE');
  });

  it.each([
    [['frobnicate'], /unknown command "frobnicate": commands are config export, /],
    [['config'], /`sluice config` needs a command: export, diff, apply, new-key/],
    [['collection', 'publish'], /`sluice collection` has no command "publish": export, import/],
    [['config', 'diff'], /`sluice config diff` needs FILE\nRun `sluice config diff --help`/],
    [['config', 'diff', 'a.yaml', 'b.yaml'], /takes FILE; unexpected: b.yaml/],
    [['config', 'apply', 'a.yaml', '--force'], /`sluice config apply` has no option --force/],
    [['collection', 'export', 'sales', '--format', 'csv'], /--format "csv" is not one of bundle, postman/],
    [['collection', 'import', 'b.yaml', '--on-conflict'], /--on-conflict needs a value \(MODE\)/],
    [['config', 'new-key', '--server', 'http://127.0.0.1:1'], /`sluice config new-key` has no option --server/],
  ])('sluice %j exits 1 naming the mistake', async (args, message) => {
    const run = await sluice(args);
    expect(run.code, shown(run)).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });

  it.each([['--api-key=slc_x'], ['--key'], ['--token']])('refuses a key given as %s, pointing at SLUICE_CLI_API_KEY', async (option) => {
    const run = await sluice(['config', 'diff', 'a.yaml', '--server', 'http://127.0.0.1:1', option]);
    expect(run.code, shown(run)).toBe(1);
    expect(run.stderr).toContain('a key is never taken as an argument');
    expect(run.stderr).toContain('Set SLUICE_CLI_API_KEY in the environment instead.');
    expect(run.stderr).not.toContain('slc_x');
  });
});
