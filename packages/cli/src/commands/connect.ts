// `floe connect <catalog>`: the ready-to-paste recipe for an engine
// (GET /v1/connection). The recipe alone goes to stdout, so
// `floe connect lake --engine pyiceberg > lake.py` works; what it is and which
// credential it carries goes to stderr. --json prints Floe's whole answer.
import { Option, type Command } from 'commander';
import type { Level } from '../api-client.js';
import type { Io } from '../io.js';
import { openSession } from '../session.js';

export function registerConnect(program: Command, io: Io): void {
  program.command('connect')
    .description('print a ready-to-paste connection recipe for a catalog')
    .argument('<catalog>', 'catalog name or id')
    .option('--engine <engine>', 'duckdb (default), pyiceberg or spark')
    .addOption(new Option('--level <level>', 'read gives the read-only credential; write needs write (default: the level you hold)').choices(['read', 'write']))
    .option('--json', "print Floe's whole answer as JSON (the credential included)")
    .action(async (catalog: string, opts: { engine?: string; level?: Level; json?: boolean }, cmd: Command) => {
      const { api } = openSession(io, cmd.optsWithGlobals().baseUrl);
      const c = await api.connection(catalog, opts.engine, opts.level);
      if (opts.json) return io.out(JSON.stringify(c, null, 2));
      io.err(`# ${c.engine} recipe for catalog ${c.warehouse} at ${c.level} level (credential ${c.catalog_credential.client_id}); it holds a secret, keep it private.`);
      io.out(c.recipe);
    });
}
