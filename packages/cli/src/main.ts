// Entry point of the `floe` binary (bin/floe.js loads it): runs the command
// line against the real process and exits with the code run() chose.
import { processIo } from './io.js';
import { run } from './program.js';

// `floe … | head` closes the pipe early: that is the reader's choice, not a failure to report.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

process.exitCode = await run(process.argv.slice(2), processIo());
