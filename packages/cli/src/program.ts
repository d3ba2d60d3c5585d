// The `floe` command line: global options, the commands (one file each under
// commands/), and the environment it reads, as `floe --help` shows them.
// `run` maps every outcome to an exit code: 0 ok, 1 refused or failed,
// 2 usage (commander's own parse errors included); failures print without a stack.
import { Command, CommanderError } from 'commander';
import { registerCatalogs } from './commands/catalogs.js';
import { registerConnect } from './commands/connect.js';
import { registerLogin } from './commands/login.js';
import { registerLogout } from './commands/logout.js';
import { registerRows } from './commands/rows.js';
import { registerWhoami } from './commands/whoami.js';
import { describeFailure, EXIT_OK, EXIT_USAGE } from './errors.js';
import type { Io } from './io.js';
import { CLI_VERSION } from './version.js';

const ENVIRONMENT = `
Environment:
  FLOE_BASE_URL     Floe API address when --base-url is not given (else the stored login's)
  FLOE_API_KEY      an API key to use instead of the stored login's key (logout never revokes it)
  FLOE_CONFIG_DIR   where the login is stored (default $XDG_CONFIG_HOME/floe or ~/.config/floe)
  FLOE_DEBUG        set to 1 to print the stack of a failure as well

Exit codes: 0 ok, 1 refused or failed, 2 usage error.`;

export function buildProgram(io: Io): Command {
  const program = new Command('floe')
    .description('Floe, hosted Apache Iceberg catalogs, from the command line')
    .version(CLI_VERSION, '-V, --version')
    .option('--base-url <url>', 'Floe API address (overrides FLOE_BASE_URL and the stored login)')
    .addHelpText('after', ENVIRONMENT)
    .showHelpAfterError('(run `floe --help` for usage)')
    .configureOutput({ writeOut: (s) => io.out(s.replace(/\n$/, '')), writeErr: (s) => io.err(s.replace(/\n$/, '')) })
    .exitOverride();
  for (const register of [registerLogin, registerWhoami, registerCatalogs, registerConnect, registerRows, registerLogout]) register(program, io);
  return program;
}

/** Runs one command line (argv without node and script) and answers its exit code. */
export async function run(argv: string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander has already printed its message or the help text
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT_OK;
      return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    const { lines, exitCode } = describeFailure(err);
    for (const line of lines) io.err(line);
    if (io.env.FLOE_DEBUG && err instanceof Error && err.stack) io.err(err.stack);
    return exitCode;
  }
}
