// Entry point of the `floe` binary (bin/floe.js loads it): runs the command
// line against the real process and exits with the code run() chose.
import { processIo } from './io.js';
import { run } from './program.js';

process.exitCode = await run(process.argv.slice(2), processIo());
