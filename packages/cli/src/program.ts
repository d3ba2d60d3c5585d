// The `floe` command line: global options, the commands (one file per
// resource under commands/), and the environment it reads, as `floe --help`
// shows them. `run` maps every outcome to an exit code (errors.ts): 0 ok,
// 1 refused or failed, 2 usage (commander's own parse errors included), 3 not
// logged in or not allowed, 4 Floe failed or unreachable; failures print as
// one line without a stack (as JSON on stderr with --json).
import { Command, CommanderError, Option } from 'commander';
import { registerAgents } from './commands/agents.js';
import { registerAudit } from './commands/audit.js';
import { registerAuth } from './commands/auth.js';
import { registerBlobs } from './commands/blobs.js';
import { registerCatalogs } from './commands/catalogs.js';
import { registerCompletion } from './commands/completion.js';
import { registerConnect } from './commands/connect.js';
import { registerKeys } from './commands/keys.js';
import { registerMcp } from './commands/mcp.js';
import { registerOrgs } from './commands/orgs.js';
import { registerRows } from './commands/rows.js';
import { registerSinks } from './commands/sinks.js';
import { registerTables } from './commands/tables.js';
import { registerUploaders } from './commands/uploaders.js';
import { registerUsage } from './commands/usage.js';
import { describeFailure, EXIT_OK, EXIT_USAGE, failureJson } from './errors.js';
import type { Io } from './io.js';
import { CLI_VERSION } from './version.js';

const ENVIRONMENT = `
Environment:
  FLOE_BASE_URL     Floe API address when --base-url is not given (else the profile's)
  FLOE_API_KEY      an API key to use instead of the profile's key (logout never revokes it)
  FLOE_PROFILE      the profile to use when --profile is not given (else the current one)
  FLOE_CONFIG_DIR   where profiles are kept (default $XDG_CONFIG_HOME/floe or ~/.config/floe)
  FLOE_KEYCHAIN     off: keep keys in credentials.json (0600) even where an OS keychain answers
  FLOE_DEBUG        set to 1 to print the stack of a failure as well

Exit codes: 0 ok, 1 refused or failed, 2 usage error, 3 not logged in or not allowed,
4 Floe failed or could not be reached.

Start with \`floe auth login\`, then \`floe catalogs list\`. Every command takes --json.`;

/** Each command group, in the order --help lists them. */
const GROUPS = [
  registerAuth, registerOrgs, registerCatalogs, registerTables, registerRows, registerSinks, registerBlobs, registerUploaders,
  registerKeys, registerAgents, registerUsage, registerAudit, registerConnect, registerMcp, registerCompletion,
];

export function buildProgram(io: Io): Command {
  const program = new Command('floe')
    .description('Floe, hosted Apache Iceberg catalogs, from the command line')
    .version(CLI_VERSION, '-V, --version')
    .option('--base-url <url>', 'Floe API address (overrides FLOE_BASE_URL and the profile)')
    .option('--profile <name>', 'the login to use (see `floe auth status`; overrides FLOE_PROFILE)')
    .option('--org <id|handle>', 'the organisation to act in (default: the profile\'s)')
    .option('--json', 'print results as JSON (streams as one object per line), failures as JSON on stderr')
    .addOption(new Option('-y, --yes', 'answer yes to confirmations (needed off a terminal)'))
    .addHelpText('after', ENVIRONMENT)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => io.out(s.replace(/\n$/, '')), writeErr: (s) => io.err(s.replace(/\n$/, '')) })
    .exitOverride();
  // Commands made with .command() take the root's output, exit handling and help-after-error (commander copies them).
  for (const register of GROUPS) register(program, io);
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
    if (argv.includes('--json')) io.err(failureJson(err));
    else for (const line of lines) io.err(line);
    if (io.env.FLOE_DEBUG && err instanceof Error && err.stack) io.err(err.stack);
    return exitCode;
  }
}
