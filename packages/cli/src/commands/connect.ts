// `floe connect <catalog>`: the ready-to-paste recipe for an engine
// (GET /v1/connection). The recipe alone goes to stdout, so
// `floe connect lake --engine pyiceberg > lake.py` works; what it is and which
// credential it carries goes to stderr. --json prints Floe's whole answer.
import { Option, type Command } from 'commander';
import { ENGINES, type Engine, type Level } from '../api-client.js';
import { act, examples } from '../command.js';
import type { Io } from '../io.js';

export function registerConnect(program: Command, io: Io): void {
  examples(program.command('connect')
    .description('print a ready-to-paste connection recipe for a catalog')
    .argument('<catalog>', 'catalog name or id')
    .addOption(new Option('--engine <engine>', 'the engine the recipe is for').choices(ENGINES).default('duckdb'))
    .addOption(new Option('--level <level>', 'read gives the read-only credential; write needs write (default: the level you hold)').choices(['read', 'write']))
    .action(act(io, async (c, catalog: string, opts: { engine: Engine; level?: Level }) => {
      const { api } = await c.session();
      const conn = await api.connection(catalog, opts.engine, opts.level);
      c.out.result(conn, (r) => {
        c.out.note(`# ${r.engine} recipe for catalog ${r.warehouse} at ${r.level} level (credential ${r.catalog_credential.client_id}); it holds a secret, keep it private.`);
        c.out.line(r.recipe);
      });
    })), ['floe connect lake', 'floe connect lake --engine pyiceberg > lake.py', 'floe connect lake --level read --json | jq -r .recipe']);
}
